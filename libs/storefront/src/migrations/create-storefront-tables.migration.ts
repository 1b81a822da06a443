import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';

const TENANTS = 'storefront_tenants';
const CUSTOMERS = 'storefront_customers';
const ORDERS = 'storefront_orders';

const integer = (name: string, isPrimary = false): TableColumnOptions => ({
  name,
  type: 'integer',
  isPrimary,
  isNullable: false,
});
const varchar = (name: string, length: number, isPrimary = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isPrimary,
  isNullable: false,
});

function references(name: string, column: string, table: string): TableForeignKey {
  return new TableForeignKey({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete: 'RESTRICT',
    onUpdate: 'NO ACTION',
  });
}

/**
 * Creates `storefront_tenants`, `storefront_customers` and `storefront_orders` with TypeORM's
 * engine-neutral Table API (only `integer`, `varchar(n)` and `text` columns), so the same class runs on
 * SQLite (better-sqlite3), PostgreSQL and MySQL/MariaDB. `down` drops the three tables, children first.
 */
export class CreateStorefrontTables1795987483857 implements MigrationInterface {
  name = 'CreateStorefrontTables1795987483857';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({ name: TENANTS, columns: [varchar('id', 64, true), varchar('name', 255)] }),
    );
    await queryRunner.createTable(
      new Table({
        name: CUSTOMERS,
        columns: [integer('id', true), varchar('tenant_id', 64), varchar('display_name', 255), varchar('role', 16)],
        indices: [new TableIndex({ name: 'idx_storefront_customers_tenant', columnNames: ['tenant_id'] })],
        foreignKeys: [references('fk_storefront_customers_tenant', 'tenant_id', TENANTS)],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: ORDERS,
        columns: [
          integer('id', true),
          varchar('tenant_id', 64),
          integer('customer_id'),
          varchar('status', 16),
          integer('total'),
          integer('version'),
          { name: 'description', type: 'text', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'idx_storefront_orders_tenant_customer', columnNames: ['tenant_id', 'customer_id'] }),
          new TableIndex({ name: 'idx_storefront_orders_customer', columnNames: ['customer_id'] }),
        ],
        foreignKeys: [
          references('fk_storefront_orders_tenant', 'tenant_id', TENANTS),
          references('fk_storefront_orders_customer', 'customer_id', CUSTOMERS),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(ORDERS);
    await queryRunner.dropTable(CUSTOMERS);
    await queryRunner.dropTable(TENANTS);
  }
}
