import { randomUUID } from 'node:crypto';
import type { Decision } from '../decisions/decision.js';
import { type DecisionFacts, decisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import type { ToolKind } from '../evidence/tool-kind.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';

/**
 * The evidence of one proposal: every record shares the correlation id, and each carries the facts the
 * earlier stages established (argument fingerprint, identity fingerprints, ...).
 */
export class EvidenceTrail {
  private facts: DecisionFacts = {};
  private sequence = 0;

  constructor(
    private readonly recorder: EvidenceRecorder,
    private readonly clock: () => Date,
    readonly correlationId: string,
    readonly capability: string,
    private readonly toolKind: ToolKind,
  ) {}

  /** Facts every later record carries. */
  establish(facts: DecisionFacts): void {
    this.facts = { ...this.facts, ...facts };
  }

  /** Records one decision. A write failure stops the action (no mutating gate has run yet). */
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
      throw new EvidenceWriteFailedError(capability, decision.stage, error);
    }
  }
}
