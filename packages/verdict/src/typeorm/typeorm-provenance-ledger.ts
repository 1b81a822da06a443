import { type DataSource, Equal, type FindOperator } from 'typeorm';
import type { ProvenanceLedger } from '../provenance/provenance-ledger.interface.js';
import { type ProvenanceRecord, provenanceRecord } from '../provenance/provenance-record.js';
import { ProvenanceRecordEntity } from './provenance-record.entity.js';
import { checkUtcTimezone } from './store-connection.js';

/**
 * The provenance ledger in `verdict_provenance_records` (SQLite, PostgreSQL, MySQL/MariaDB): append-only,
 * one insert per batch (all rows or none).
 *
 * @example VerdictModule.forRoot({ ..., provenance: { ledger: new TypeOrmProvenanceLedger(dataSource) } })
 */
export class TypeOrmProvenanceLedger implements ProvenanceLedger {
  constructor(private readonly dataSource: DataSource) {
    checkUtcTimezone(dataSource, 'TypeOrmProvenanceLedger');
  }

  async append(records: readonly ProvenanceRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ProvenanceRecordEntity)
      .values(records.map(provenanceRecord))
      .updateEntity(false)
      .callListeners(false)
      .execute();
  }

  forContent(contentFingerprint: string): Promise<readonly ProvenanceRecord[]> {
    return this.find({ contentFingerprint: Equal(contentFingerprint) });
  }

  forCorrelation(correlationId: string): Promise<readonly ProvenanceRecord[]> {
    return this.find({ correlationId: Equal(correlationId) });
  }

  /** `Equal`: under `invalidWhereValuesBehavior: { null: 'ignore' }` a bare null would match every record. */
  private async find(
    where: { contentFingerprint: FindOperator<string> } | { correlationId: FindOperator<string> },
  ): Promise<readonly ProvenanceRecord[]> {
    const rows = await this.dataSource
      .getRepository(ProvenanceRecordEntity)
      .find({ where, order: { recordedAt: 'ASC', id: 'ASC' } });
    return rows.map((row) => provenanceRecord(row));
  }
}
