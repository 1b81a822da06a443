import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_release_records';

/**
 * Creates `verdict_release_records` (docs/context-release.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB: route names and labels in clear, payload facts as fingerprints and a count. Indexed by
 * correlation id and by destination and time (what went where, when). `down` drops the table and its indexes.
 */
export class CreateReleaseRecords1796000000000 implements MigrationInterface {
  name = 'CreateReleaseRecords1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const label = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
    });
    const fingerprint = (name: string): TableColumnOptions => label(name, 64);

    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        label('correlation_id', 128),
        label('source_kind', 32),
        label('source_name', 128),
        label('destination_connection', 128),
        label('destination_trust_zone', 128),
        label('classification', 32),
        label('trust', 32),
        label('disposition', 32),
        { name: 'reason', type: 'text' },
        fingerprint('requested_paths_fingerprint'),
        fingerprint('released_paths_fingerprint'),
        fingerprint('transformed_paths_fingerprint'),
        fingerprint('transform_names_fingerprint'),
        { name: 'transformation_count', type: 'integer' },
        fingerprint('payload_fingerprint'),
        { ...instant, name: 'recorded_at' },
      ],
      indices: [
        new TableIndex({ name: 'idx_verdict_release_records_correlation', columnNames: ['correlation_id'] }),
        new TableIndex({
          name: 'idx_verdict_release_records_destination_time',
          columnNames: ['destination_connection', 'destination_trust_zone', 'recorded_at'],
        }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
