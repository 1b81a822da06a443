import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { type DecisionRecord, decisionRecord } from '../evidence/decision-record.js';
import {
  type CheckedEvidenceFilter,
  type EvidenceFilter,
  checkedCorrelationId,
  checkedEvidenceFilter,
} from '../evidence/evidence-filter.js';
import type { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import { DecisionRecordEntity } from './decision-record.entity.js';

/**
 * {@link EvidenceQuery} over `verdict_decision_records`: one SELECT per call, each filter served by an index of
 * `verdictMigrations` (ADR 0023). Read only. On MySQL/MariaDB the DataSource must use `timezone: 'Z'`, as for
 * the recorder.
 *
 * @example
 * VerdictModule.forRoot({ abilityFactory, evidence: new TypeOrmEvidenceRecorder(dataSource), evidenceQuery: new TypeOrmEvidenceQuery(dataSource) });
 */
export class TypeOrmEvidenceQuery implements EvidenceQuery {
  constructor(private readonly dataSource: DataSource) {}

  async list(filter: EvidenceFilter = {}): Promise<DecisionRecord[]> {
    return plain(await evidenceListQuery(this.dataSource, checkedEvidenceFilter(filter)).getMany());
  }

  async run(correlationId: string): Promise<DecisionRecord[]> {
    return plain(await evidenceRunQuery(this.dataSource, checkedCorrelationId(correlationId)).getMany());
  }
}

/** The SELECT behind {@link TypeOrmEvidenceQuery.run} (internal; the index tests EXPLAIN it). */
export function evidenceRunQuery(
  dataSource: DataSource,
  correlationId: string,
): SelectQueryBuilder<DecisionRecordEntity> {
  return dataSource
    .getRepository(DecisionRecordEntity)
    .createQueryBuilder('r')
    .where('r.correlationId = :correlationId', { correlationId })
    .orderBy('r.sequence', 'ASC');
}

/** The SELECT behind {@link TypeOrmEvidenceQuery.list} (internal; the index tests EXPLAIN it). */
export function evidenceListQuery(
  dataSource: DataSource,
  filter: CheckedEvidenceFilter,
): SelectQueryBuilder<DecisionRecordEntity> {
  const query = dataSource.getRepository(DecisionRecordEntity).createQueryBuilder('r');
  const equal = [
    ['capability', filter.capability],
    ['disposition', filter.disposition],
    ['stage', filter.stage],
    ['actorFingerprint', filter.actorFingerprint],
    ['toolCallFingerprint', filter.toolCallFingerprint],
  ] as const;
  for (const [field, value] of equal)
    if (value !== undefined) query.andWhere(`r.${field} = :${field}`, { [field]: value });
  if (filter.since !== undefined) query.andWhere('r.recordedAt >= :since', { since: filter.since });
  if (filter.until !== undefined) query.andWhere('r.recordedAt < :until', { until: filter.until });
  return query
    .orderBy('r.recordedAt', 'DESC')
    .addOrderBy('r.correlationId', 'ASC')
    .addOrderBy('r.sequence', 'DESC')
    .limit(filter.limit);
}

/** Entities as plain records, the declared fields only. */
function plain(rows: readonly DecisionRecordEntity[]): DecisionRecord[] {
  return rows.map((row) => decisionRecord(row, row));
}
