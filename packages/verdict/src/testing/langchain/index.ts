// `@verdict/nestjs/testing/langchain`: the scripted chat model, apart from the rest of the testing kit so that
// contract suites and the testing module load without @langchain/core.
export * from '../scripted-chat-model.js';
