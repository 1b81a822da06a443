import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The index of each record table that its streams are listed and counted by. */
const STREAM_INDEXES = [
  {
    table: 'verdict_decision_records',
    index: new TableIndex({ name: 'idx_verdict_decision_records_stream', columnNames: ['stream'] }),
  },
  {
    table: 'verdict_release_records',
    index: new TableIndex({ name: 'idx_verdict_release_records_stream', columnNames: ['stream'] }),
  },
];

/**
 * Indexes the `stream` of the decision and release records (ADR 0110) on SQLite, PostgreSQL and MySQL/MariaDB:
 * `verify` lists the streams one index probe per stream and counts a stream's records from the index, where it
 * read every record of the table for each stream. `down` drops the indexes.
 */
export class IndexEvidenceStreams1797011000000 implements MigrationInterface {
  name = 'IndexEvidenceStreams1797011000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { table, index } of STREAM_INDEXES) await queryRunner.createIndex(table, index);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { table, index } of [...STREAM_INDEXES].reverse()) await queryRunner.dropIndex(table, index.name!);
  }
}
