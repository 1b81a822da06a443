import type { Decision } from '../decisions/decision.js';
import { isShadowDisposition, shadowOf } from '../decisions/shadow-disposition.js';
import { isAlwaysEnforced } from '../decisions/always-enforced.js';
import { type DecisionFacts, type DecisionRecord, decisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import { EvidenceLevel } from './evidence-level.js';
import { DEFAULT_EVIDENCE_STREAM } from './evidence-stream.js';
import type { ToolKind } from './tool-kind.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';
import { EvidenceWriteFailed } from '../events/evidence-write-failed.event.js';
import { evidenceId } from './evidence-id.js';
import { SETTLED } from '../shared/settled.js';

/**
 * The evidence of one proposal: every record shares the correlation id, and each carries the facts the
 * earlier stages established (argument fingerprint, identity fingerprints, ...).
 *
 * Records are buffered and written in at most two batches (ADR 0022): {@link beforeMutation} writes
 * what the run recorded before its first mutating step (a durable gate or the executor), and
 * {@link close} writes the rest when the run ends. A run that mutates nothing writes once, at its end.
 * At `EvidenceLevel.Minimal` each write keeps only its latest record, and every shadow record (docs/shadow-mode.md).
 */
export class EvidenceTrail {
  private facts: DecisionFacts = {};
  private sequence = 0;
  private mutated = false;
  private pending: DecisionRecord[] = [];
  /** The decision of the latest record: the only one {@link shade} may re-label. */
  private latest: Decision | undefined;
  /** Whether a record was shaded: a minimal write keeps those too. */
  private shaded = false;

  constructor(
    private readonly recorder: EvidenceRecorder,
    private readonly clock: () => Date,
    readonly correlationId: string,
    readonly capability: string,
    readonly toolKind: ToolKind,
    private readonly onLateFailure: (failure: EvidenceWriteFailed) => void,
    private readonly stream: string = DEFAULT_EVIDENCE_STREAM,
    private readonly level: EvidenceLevel = EvidenceLevel.Standard,
  ) {}

  /**
   * A mutating step (a durable gate, the executor) is about to run: while nothing has mutated yet,
   * writes what was recorded so far, and a write failure stops the action (`EvidenceWriteFailedError`)
   * before anything is spent.
   */
  beforeMutation(): Promise<void> {
    return this.mutated ? Promise.resolve() : this.flush();
  }

  /** A mutating gate has run: from now on a write failure is reported, and the action's result stands. */
  markMutated(): void {
    this.mutated = true;
  }

  /** Facts every later record carries. */
  establish(facts: DecisionFacts): void {
    this.facts = { ...this.facts, ...facts };
  }

  /**
   * Records one decision (written by the next {@link beforeMutation} or {@link close}). Synchronous: it only
   * buffers, so the call path awaits nothing for it (ADR 0053).
   */
  record(decision: Decision, facts?: DecisionFacts): void {
    const { capability, correlationId, toolKind, stream } = this;
    this.latest = decision;
    this.pending.push(
      decisionRecord(
        {
          id: evidenceId(),
          correlationId,
          sequence: this.sequence++,
          stream,
          capability,
          toolKind,
          stage: decision.stage,
          disposition: decision.disposition,
          reason: decision.reason,
          recordedAt: this.clock(),
        },
        facts === undefined ? this.facts : { ...this.facts, ...facts },
      ),
    );
  }

  /**
   * Shadow mode (docs/shadow-mode.md): re-labels the record of `decision` — the latest recorded, not written yet —
   * with its shadow disposition (`would_deny` for `deny` and `throttle`, `would_confirm` for `require_confirmation`).
   * Answers whether it did; a run goes on past a refusal only when its record says so.
   */
  shade(decision: Decision): boolean {
    const last = this.pending.length - 1;
    const disposition = shadowOf(decision.disposition);
    if (decision !== this.latest || last < 0 || disposition === null || isAlwaysEnforced(decision)) return false;
    this.pending[last] = { ...this.pending[last]!, disposition };
    this.latest = undefined;
    this.shaded = true;
    return true;
  }

  /**
   * The run ended: writes what is pending. Before any mutating gate a write failure stops the action
   * (`EvidenceWriteFailedError`); after one, it is reported as an `EvidenceWriteFailed` event.
   */
  close(): Promise<void> {
    return this.flush();
  }

  /**
   * After a mutating gate: writes what is recorded so far now, alongside the step that follows (the claim's
   * completion, ADR 0111), rather than when the run ends. A write failure is reported as an `EvidenceWriteFailed`
   * event, as any write after a mutation; before one it stops the action as {@link beforeMutation} does.
   */
  writeNow(): Promise<void> {
    return this.flush();
  }

  /** The run ended with an exception: writes what is pending, and reports a write failure, never masking the exception. */
  async closeAfterFault(): Promise<void> {
    this.mutated = true;
    await this.flush();
  }

  private flush(): Promise<void> {
    const recorded = this.pending;
    if (recorded.length === 0) return SETTLED;
    this.pending = [];
    const batch = this.level === EvidenceLevel.Minimal ? minimal(recorded, this.shaded) : recorded;
    if (this.recorder.recordDecisions === undefined) return this.eachRecord(batch);
    // One promise for the batch (every run ends here): a recorder that throws rather than rejects fails alike.
    let written: Promise<void>;
    try {
      written = this.recorder.recordDecisions(batch);
    } catch (error) {
      written = Promise.reject(error);
    }
    return written.catch((error: unknown) => this.failed(batch[0]!, error));
  }

  /** A recorder without `recordDecisions`: one record at a time, a failure named by the record it failed on. */
  private async eachRecord(batch: readonly DecisionRecord[]): Promise<void> {
    for (const record of batch)
      try {
        await this.recorder.recordDecision(record);
      } catch (error) {
        return this.failed(record, error);
      }
  }

  /** Before any mutating gate a failed write stops the action; after one it is reported. */
  private failed({ stage }: DecisionRecord, error: unknown): void {
    if (!this.mutated) throw new EvidenceWriteFailedError(this.capability, stage, error);
    this.onLateFailure(new EvidenceWriteFailed(this.capability, this.correlationId, stage, error));
  }
}

/** What a minimal write keeps: the latest record, and each shadow record before it (what enforcement would have refused). */
function minimal(recorded: readonly DecisionRecord[], shaded: boolean): DecisionRecord[] {
  const latest = recorded[recorded.length - 1]!;
  if (!shaded) return [latest];
  return recorded.filter((record) => record === latest || isShadowDisposition(record.disposition));
}
