import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { ShadowDisposition } from '../decisions/shadow-disposition.js';
import { type DecisionRecord, decisionRecord } from '../evidence/decision-record.js';
import { ToolKind } from '../evidence/tool-kind.js';
import {
  type CheckedEvidenceFilter,
  type EvidenceFilter,
  checkedCorrelationId,
  checkedEvidenceFilter,
} from '../evidence/evidence-filter.js';
import type { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import { DecisionRecordEntity } from './decision-record.entity.js';
import type { Stage } from '../decisions/stage.js';
import {
  type ShadowSummaryFilter,
  type ShadowSummaryRow,
  byMostCalls,
  checkedShadowSummaryFilter,
} from '../evidence/shadow-summary.js';
import { checkUtcTimezone } from './store-connection.js';
import { storableReason } from '../evidence/storable-reason.js';

/**
 * {@link EvidenceQuery} over `verdict_decision_records`: one SELECT per call, each filter served by an index of
 * `verdictMigrations` (ADR 0023). Read only. On MySQL/MariaDB the DataSource must use `timezone: 'Z'`, as for
 * the recorder. Every filter matches exactly, case and trailing spaces included: on MySQL/MariaDB the compared
 * columns have a binary, no-pad collation (migration `CompareDecisionRecordsExactly1797014000000`).
 *
 * @example
 * VerdictModule.forRoot({ abilityFactory, evidence: new TypeOrmEvidenceRecorder(dataSource), evidenceQuery: new TypeOrmEvidenceQuery(dataSource) });
 */
export class TypeOrmEvidenceQuery implements EvidenceQuery {
  constructor(private readonly dataSource: DataSource) {
    checkUtcTimezone(dataSource, 'TypeOrmEvidenceQuery');
  }

  async list(filter: EvidenceFilter = {}): Promise<DecisionRecord[]> {
    return plain(await evidenceListQuery(this.dataSource, checkedEvidenceFilter(filter)).getMany());
  }

  async run(correlationId: string): Promise<DecisionRecord[]> {
    return plain(await evidenceRunQuery(this.dataSource, checkedCorrelationId(correlationId)).getMany());
  }

  async shadowSummary(filter: ShadowSummaryFilter = {}): Promise<ShadowSummaryRow[]> {
    const rows = await shadowSummaryQuery(this.dataSource, checkedShadowSummaryFilter(filter)).getRawMany<RawRow>();
    return rows
      .map((row) => ({
        capability: row.capability,
        stage: row.stage,
        disposition: row.disposition,
        // As `list` reads it (`decisionRecord`): a reason recorded before reasons were made storable reads back cut.
        reason: storableReason(row.reason),
        calls: Number(row.calls),
        records: Number(row.records),
      }))
      .sort(byMostCalls);
  }
}

/** One group of {@link shadowSummaryQuery}, as the driver returns it (counts may be strings). */
interface RawRow {
  capability: string;
  stage: Stage;
  disposition: ShadowDisposition;
  reason: string;
  calls: number | string;
  records: number | string;
}

/**
 * The SELECT behind {@link TypeOrmEvidenceQuery.shadowSummary}: one GROUP BY over the shadow records, served by the
 * disposition and time index.
 */
export function shadowSummaryQuery(
  dataSource: DataSource,
  filter: ShadowSummaryFilter,
): SelectQueryBuilder<DecisionRecordEntity> {
  const query = dataSource
    .getRepository(DecisionRecordEntity)
    .createQueryBuilder('r')
    .select('r.capability', 'capability')
    .addSelect('r.stage', 'stage')
    .addSelect('r.disposition', 'disposition')
    .addSelect('r.reason', 'reason')
    .addSelect('COUNT(DISTINCT r.correlationId)', 'calls')
    .addSelect('COUNT(*)', 'records')
    .where('r.disposition IN (:...shadow)', { shadow: Object.values(ShadowDisposition) })
    // As `isSummarizedShadowRecord`: a dry run went on past nothing.
    .andWhere('r.toolKind <> :dryRun', { dryRun: ToolKind.Evaluation });
  if (filter.capability !== undefined) query.andWhere('r.capability = :capability', { capability: filter.capability });
  if (filter.since !== undefined) query.andWhere('r.recordedAt >= :since', { since: filter.since });
  if (filter.until !== undefined) query.andWhere('r.recordedAt < :until', { until: filter.until });
  return query.groupBy('r.capability').addGroupBy('r.stage').addGroupBy('r.disposition').addGroupBy('r.reason');
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
  if (filter.shadow === true && filter.disposition === undefined)
    query.andWhere('r.disposition IN (:...shadow)', { shadow: Object.values(ShadowDisposition) });
  if (filter.since !== undefined) query.andWhere('r.recordedAt >= :since', { since: filter.since });
  if (filter.until !== undefined) query.andWhere('r.recordedAt < :until', { until: filter.until });
  if (filter.after !== undefined) {
    // The records after the cursor's in the order below, spelled out per key (the directions differ, so no row-value
    // comparison): every engine reads it alike. `recordedAt <= :afterAt` is the range the time indexes serve.
    const { recordedAt, correlationId, sequence, id } = filter.after;
    query.andWhere(
      `r.recordedAt <= :afterAt AND (r.recordedAt < :afterAt OR r.correlationId > :afterCorrelation OR ` +
        `(r.correlationId = :afterCorrelation AND (r.sequence < :afterSequence OR ` +
        `(r.sequence = :afterSequence AND r.id > :afterId))))`,
      { afterAt: recordedAt, afterCorrelation: correlationId, afterSequence: sequence, afterId: id },
    );
  }
  // Newest first; ties by correlation id, then the later stage first, then id: a total order, which a cursor needs.
  return query
    .orderBy('r.recordedAt', 'DESC')
    .addOrderBy('r.correlationId', 'ASC')
    .addOrderBy('r.sequence', 'DESC')
    .addOrderBy('r.id', 'ASC')
    .limit(filter.limit);
}

/** Entities as plain records, the declared fields only. */
function plain(rows: readonly DecisionRecordEntity[]): DecisionRecord[] {
  return rows.map((row) => decisionRecord(row, row));
}
