import { isShadowDisposition } from '../decisions/shadow-disposition.js';
import type { DecisionRecord } from './decision-record.js';
import {
  type CheckedEvidenceFilter,
  type EvidenceFilter,
  checkedCorrelationId,
  checkedEvidenceFilter,
} from './evidence-filter.js';
import type { EvidenceQuery } from './evidence-query.interface.js';
import type { InMemoryEvidenceRecorder } from './in-memory-evidence-recorder.js';
import { listOrder } from './evidence-cursor.js';
import {
  type ShadowSummaryFilter,
  type ShadowSummaryRow,
  checkedShadowSummaryFilter,
  summarizeShadowRecords,
} from './shadow-summary.js';

/**
 * {@link EvidenceQuery} over the records an {@link InMemoryEvidenceRecorder} still keeps (it drops the oldest
 * past its capacity). Tests and local development; the default `evidenceQuery` when `evidence` is one.
 *
 * @example
 * const evidence = new InMemoryEvidenceRecorder();
 * VerdictModule.forRoot({ abilityFactory, evidence, evidenceQuery: new InMemoryEvidenceQuery(evidence) });
 */
export class InMemoryEvidenceQuery implements EvidenceQuery {
  constructor(private readonly recorder: InMemoryEvidenceRecorder) {}

  async list(filter: EvidenceFilter = {}): Promise<DecisionRecord[]> {
    const checked = checkedEvidenceFilter(filter);
    return this.recorder
      .decisions()
      .filter((record) => matches(record, checked))
      .sort(listOrder)
      .slice(0, checked.limit);
  }

  async shadowSummary(filter: ShadowSummaryFilter = {}): Promise<ShadowSummaryRow[]> {
    const checked = checkedEvidenceFilter(checkedShadowSummaryFilter(filter));
    return summarizeShadowRecords(this.recorder.decisions().filter((record) => matches(record, checked)));
  }

  async run(correlationId: string): Promise<DecisionRecord[]> {
    const id = checkedCorrelationId(correlationId);
    return this.recorder
      .decisions()
      .filter((record) => record.correlationId === id)
      .sort((a, b) => a.sequence - b.sequence);
  }
}

function matches(record: DecisionRecord, filter: CheckedEvidenceFilter): boolean {
  const at = record.recordedAt.getTime();
  return (
    (filter.capability === undefined || record.capability === filter.capability) &&
    (filter.disposition === undefined || record.disposition === filter.disposition) &&
    (filter.shadow !== true || isShadowDisposition(record.disposition)) &&
    (filter.stage === undefined || record.stage === filter.stage) &&
    (filter.actorFingerprint === undefined || record.actorFingerprint === filter.actorFingerprint) &&
    (filter.toolCallFingerprint === undefined || record.toolCallFingerprint === filter.toolCallFingerprint) &&
    (filter.since === undefined || at >= filter.since.getTime()) &&
    (filter.until === undefined || at < filter.until.getTime()) &&
    // Listed after the cursor's record: the order both adapters list in (`listOrder`).
    (filter.after === undefined || listOrder(filter.after, record) < 0)
  );
}
