import { Customer } from './customer.entity.js';
import { Order } from './order.entity.js';
import { RecordsExport } from './records-export.entity.js';
import { SupportTicket } from './support-ticket.entity.js';
import { Tenant } from './tenant.entity.js';

/**
 * Every storefront entity, for a DataSource's `entities`. Pair it with `storefrontMigrations`.
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: storefrontEntities, migrations: storefrontMigrations });
 */
export const storefrontEntities = [Tenant, Customer, Order, SupportTicket, RecordsExport];
