import {
  type DecisionRecord,
  type EvidenceRecorder,
  type ReleaseRecord,
  Stage,
  fingerprintString,
} from '@verdict/nestjs';

/**
 * The lab's stand-in for a concurrent writer: an evidence recorder that passes every record on and, right
 * after the proposal stage of an armed tool call was recorded as permitted, runs that call's write — so the
 * write lands between Verdict's check and its execution, exactly where a race would put it. Only the
 * "resource swapped between check and execution" case arms it. Per lab session, never shared.
 */
export class ConcurrentWrite implements EvidenceRecorder {
  private readonly armed = new Map<string, () => Promise<void>>();

  constructor(private readonly recorder: EvidenceRecorder) {}

  /** Runs `write` once, after the next permitted proposal stage of `toolCallId`. */
  arm(toolCallId: string, write: () => Promise<void>): void {
    this.armed.set(fingerprintString(toolCallId), write);
  }

  async recordDecision(record: DecisionRecord): Promise<void> {
    await this.recorder.recordDecision(record);
    const write = record.toolCallFingerprint === null ? undefined : this.armed.get(record.toolCallFingerprint);
    if (write !== undefined && record.stage === Stage.Proposal && record.disposition === 'permit') {
      this.armed.delete(record.toolCallFingerprint!);
      await write();
    }
  }

  recordRelease(record: ReleaseRecord): Promise<void> {
    return this.recorder.recordRelease(record);
  }
}
