import { Table } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TICKETS = 'storefront_support_tickets';

/** Creates `storefront_support_tickets` (engine-neutral columns, as the other storefront tables). */
export class CreateSupportTickets1795990000000 implements MigrationInterface {
  name = 'CreateSupportTickets1795990000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: TICKETS,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'order_id', type: 'integer' },
          { name: 'customer_id', type: 'integer' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TICKETS);
  }
}
