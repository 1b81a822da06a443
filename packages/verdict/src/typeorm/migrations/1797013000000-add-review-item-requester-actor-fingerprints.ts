import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'verdict_review_items';

/**
 * Adds `requester_actor_fingerprint` to `verdict_review_items` (docs/containment.md, human decisions) on SQLite,
 * PostgreSQL and MySQL/MariaDB: the requester as an actor kill switch names them (sha256 of the module's
 * `actorKey`), which a reviewer's approval is checked by. Rows written before it, and items parked without
 * `containment`, keep `null`. `down` drops the column.
 */
export class AddReviewItemRequesterActorFingerprints1797013000000 implements MigrationInterface {
  name = 'AddReviewItemRequesterActorFingerprints1797013000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      TABLE,
      new TableColumn({ name: 'requester_actor_fingerprint', type: 'varchar', length: '64', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn(TABLE, 'requester_actor_fingerprint');
  }
}
