import type { DecisionRecord } from './decision-record.js';
import type { EvidenceFilter } from './evidence-filter.js';
import type { ShadowSummaryFilter, ShadowSummaryRow } from './shadow-summary.js';

/**
 * Reads decision evidence back, for operators (`verdict evidence list|show`) and for applications that build
 * their own views. Adapters: `InMemoryEvidenceQuery` (over an `InMemoryEvidenceRecorder`) and
 * `TypeOrmEvidenceQuery` (`@verdict/nestjs/typeorm`); configure one with `VerdictModule.forRoot({ evidenceQuery })`
 * and inject it with `@Inject(EvidenceQuery)`. Read only; records hold fingerprints, never raw values.
 * A filter that cannot be answered is an `InvalidEvidenceFilterError`.
 *
 * @example
 * const denials = await evidenceQuery.list({ disposition: 'deny', since: new Date(Date.now() - 86_400_000) });
 * const timeline = await evidenceQuery.run(denials[0].correlationId);
 * const more = await evidenceQuery.list({ disposition: 'deny', after: evidenceCursor(denials.at(-1)!) });
 */
export interface EvidenceQuery {
  /**
   * The records matching every field of `filter`, newest first (ties: correlation id, then the later stage first, then
   * id); at most `filter.limit`. With `filter.after` (`evidenceCursor(record)`), only the records after that one in
   * this order: the next page, each record listed once.
   */
  list(filter?: EvidenceFilter): Promise<DecisionRecord[]>;
  /** Every record of one proposal (one correlation id), in pipeline order; `[]` when there is none. */
  run(correlationId: string): Promise<DecisionRecord[]>;
  /**
   * What enforcement would have refused (docs/shadow-mode.md): the shadow records (`would_deny`, `would_confirm`)
   * counted per capability, stage, disposition and reason, most calls first. Both adapters implement it; an adapter of
   * the application's own without it cannot serve `verdict evidence shadow-summary`.
   */
  shadowSummary?(filter?: ShadowSummaryFilter): Promise<ShadowSummaryRow[]>;
}

/** Injection token of the configured {@link EvidenceQuery}. */
export const EvidenceQuery = Symbol('EvidenceQuery');
