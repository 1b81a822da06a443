import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'verdict_execution_claims';

/**
 * Adds `operator_identity` to `verdict_execution_claims` on SQLite, PostgreSQL and MySQL/MariaDB: who
 * actually ran an operator's resolution (the operator-identity hook; the CLI's default is the OS user),
 * next to `resolved_by`. Claims resolved before it keep `null`. `down` drops the column.
 */
export class AddExecutionClaimOperatorIdentity1796000109000 implements MigrationInterface {
  name = 'AddExecutionClaimOperatorIdentity1796000109000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      TABLE,
      new TableColumn({ name: 'operator_identity', type: 'varchar', length: '255', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn(TABLE, 'operator_identity');
  }
}
