import type { ShadowDisposition } from '../decisions/shadow-disposition.js';
import { isShadowDisposition } from '../decisions/shadow-disposition.js';
import type { Stage } from '../decisions/stage.js';
import type { DecisionRecord } from './decision-record.js';
import { checkFilterFields, checkedEvidenceFilter } from './evidence-filter.js';
import { ToolKind } from './tool-kind.js';

/**
 * Which shadow records `EvidenceQuery.shadowSummary` counts (`verdict evidence shadow-summary`): every given field
 * must match.
 *
 * @example { capability: 'orders.refund', since: new Date(Date.now() - 7 * 86_400_000) }
 */
export interface ShadowSummaryFilter {
  readonly capability?: string;
  /** Recorded at or after this instant. */
  readonly since?: Date;
  /** Recorded strictly before this instant. */
  readonly until?: Date;
}

/**
 * What enforcement would have refused, for one capability, stage, shadow disposition and internal reason: how many
 * calls (correlation ids) and how many records (a call refused at steps 3 and 9 has two). Internal reasons are
 * evidence: they may name argument paths, never values. Dry runs (`evaluate`, tool kind `evaluation`) are not
 * counted: nothing went on past their refusal. Each pipeline run is a call, so a call stopped for confirmation and
 * run again after its approval counts twice.
 */
export interface ShadowSummaryRow {
  readonly capability: string;
  readonly stage: Stage;
  readonly disposition: ShadowDisposition;
  readonly reason: string;
  /** Distinct calls (correlation ids) that went on past this refusal; dry runs are not counted. */
  readonly calls: number;
  readonly records: number;
}

/** The fields of a {@link ShadowSummaryFilter}: any other key (`disposition`, `stage`) is refused, never ignored. */
const SHADOW_SUMMARY_FILTER_FIELDS = ['capability', 'since', 'until'] as const satisfies ReadonlyArray<
  keyof ShadowSummaryFilter
>;

/** Checks a summary filter as `EvidenceQuery.list` checks its own. @throws InvalidEvidenceFilterError */
export function checkedShadowSummaryFilter(filter: ShadowSummaryFilter): ShadowSummaryFilter {
  checkFilterFields(filter, SHADOW_SUMMARY_FILTER_FIELDS);
  const { capability, since, until } = checkedEvidenceFilter({
    capability: filter.capability,
    since: filter.since,
    until: filter.until,
  });
  return { capability, since, until };
}

/** Whether `record` is counted by a shadow summary: a shadow record of a run that was not a dry run. */
export function isSummarizedShadowRecord<R extends Pick<DecisionRecord, 'disposition' | 'toolKind'>>(
  record: R,
): record is R & { readonly disposition: ShadowDisposition } {
  return isShadowDisposition(record.disposition) && record.toolKind !== ToolKind.Evaluation;
}

/** The summary of `records` (the shadow ones among them, dry runs left out), in {@link byMostCalls} order. */
export function summarizeShadowRecords(records: Iterable<DecisionRecord>): ShadowSummaryRow[] {
  const rows = new Map<string, { row: Omit<ShadowSummaryRow, 'calls'>; calls: Set<string> }>();
  for (const record of records) {
    if (!isSummarizedShadowRecord(record)) continue;
    const { capability, stage, disposition, reason, correlationId } = record;
    const key = JSON.stringify([capability, stage, disposition, reason]);
    const entry = rows.get(key) ?? { row: { capability, stage, disposition, reason, records: 0 }, calls: new Set() };
    rows.set(key, { row: { ...entry.row, records: entry.row.records + 1 }, calls: entry.calls.add(correlationId) });
  }
  return [...rows.values()].map(({ row, calls }) => ({ ...row, calls: calls.size })).sort(byMostCalls);
}

/** The order of a summary: most calls first, then capability, stage, disposition and reason. */
export function byMostCalls(a: ShadowSummaryRow, b: ShadowSummaryRow): number {
  return (
    b.calls - a.calls ||
    a.capability.localeCompare(b.capability) ||
    a.stage.localeCompare(b.stage) ||
    a.disposition.localeCompare(b.disposition) ||
    a.reason.localeCompare(b.reason)
  );
}
