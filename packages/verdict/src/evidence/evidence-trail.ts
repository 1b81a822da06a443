import { randomUUID } from 'node:crypto';
import type { Decision } from '../decisions/decision.js';
import { type DecisionFacts, decisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import type { ToolKind } from './tool-kind.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';
import { EvidenceWriteFailed } from '../events/evidence-write-failed.event.js';

/**
 * The evidence of one proposal: every record shares the correlation id, and each carries the facts the
 * earlier stages established (argument fingerprint, identity fingerprints, ...).
 */
export class EvidenceTrail {
  private facts: DecisionFacts = {};
  private sequence = 0;
  private mutated = false;

  constructor(
    private readonly recorder: EvidenceRecorder,
    private readonly clock: () => Date,
    readonly correlationId: string,
    readonly capability: string,
    readonly toolKind: ToolKind,
    private readonly onLateFailure: (failure: EvidenceWriteFailed) => void,
  ) {}

  /** A mutating gate has run: from now on a write failure is reported, and the action's result stands. */
  markMutated(): void {
    this.mutated = true;
  }

  /** Facts every later record carries. */
  establish(facts: DecisionFacts): void {
    this.facts = { ...this.facts, ...facts };
  }

  /**
   * Records one decision. Before any mutating gate a write failure stops the action
   * (`EvidenceWriteFailedError`); after one, it is reported as an `EvidenceWriteFailed` event.
   */
  async record(decision: Decision, facts: DecisionFacts = {}): Promise<void> {
    const { capability, correlationId, toolKind } = this;
    const record = decisionRecord(
      {
        id: randomUUID(),
        correlationId,
        sequence: this.sequence++,
        capability,
        toolKind,
        stage: decision.stage,
        disposition: decision.disposition,
        reason: decision.reason,
        recordedAt: this.clock(),
      },
      { ...this.facts, ...facts },
    );
    try {
      await this.recorder.recordDecision(record);
    } catch (error) {
      if (!this.mutated) throw new EvidenceWriteFailedError(capability, decision.stage, error);
      this.onLateFailure(new EvidenceWriteFailed(capability, correlationId, decision.stage, error));
    }
  }
}
