import type { TaintLedger } from './taint-ledger.interface.js';

/** Default retention of a taint entry: 90 days after the last proposal that recorded it. */
export const DEFAULT_TAINT_RETENTION_DAYS = 90;

/**
 * The taint ledger of the provenance stage (`provenance.taint`): where tainted values are kept, and for how long.
 * With it, every capability's proposals run through the provenance stage: one lookup per proposal made by an
 * agent, and one write when the proposal was under untrusted influence.
 *
 * @example provenance: { taint: { ledger: new TypeOrmTaintLedger(dataSource), retentionDays: 30 } }
 */
export interface TaintOptions {
  readonly ledger: TaintLedger;
  /**
   * How long a value stays tainted after the last proposal that carried it under untrusted influence; `verdict
   * taint prune` deletes what has expired. Default: {@link DEFAULT_TAINT_RETENTION_DAYS}.
   */
  readonly retentionDays?: number;
}
