import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const EXPORTS = 'storefront_records_exports';

/** Creates `storefront_records_exports` (engine-neutral columns, as the other storefront tables). */
export class CreateRecordsExports1796100000000 implements MigrationInterface {
  name = 'CreateRecordsExports1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: EXPORTS,
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'customer_id', type: 'integer' },
          { name: 'archive', type: 'varchar', length: '255' },
          { name: 'holds_customer_records', type: 'boolean' },
        ],
      }),
    );
    await queryRunner.createIndex(
      EXPORTS,
      new TableIndex({ name: 'idx_storefront_records_exports_owner', columnNames: ['tenant_id', 'customer_id'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(EXPORTS);
  }
}
