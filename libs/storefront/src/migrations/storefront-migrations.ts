import type { MigrationInterface } from 'typeorm';
import { CreateStorefrontTables1795987483857 } from './create-storefront-tables.migration.js';
import { CreateSupportTickets1795990000000 } from './create-support-tickets.migration.js';
import { CreateRecordsExports1796100000000 } from './create-records-exports.migration.js';

/**
 * Every storefront migration, oldest first. Add them to the DataSource's `migrations` (next to
 * `verdictMigrations` if the same database holds both) and run them; never `synchronize` the storefront.
 *
 * @example
 * const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: storefrontEntities, migrations: storefrontMigrations });
 * await dataSource.initialize();
 * await dataSource.runMigrations();
 */
export const storefrontMigrations: Array<new () => MigrationInterface> = [
  CreateStorefrontTables1795987483857,
  CreateSupportTickets1795990000000,
  CreateRecordsExports1796100000000,
];
