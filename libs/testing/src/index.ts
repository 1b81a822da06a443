export { databaseEngines, dropDataSource, openDataSource } from './database-matrix.js';
export type { DatabaseEngine, DatabaseEngineName, TestDataSourceOptions } from './database-matrix.js';
export * from './scripted-chat-model.js';
