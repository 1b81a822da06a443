import type { Decision } from '../decisions/decision.js';
import { decisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import type { ToolKind } from '../evidence/tool-kind.js';
import type { ReviewPhase } from './review-phase.js';
import { reviewItemFingerprint } from './review-item-fingerprint.js';
import { evidenceId } from '../evidence/evidence-id.js';

/**
 * Records one review-lane decision made outside a pipeline run (a reviewer's decision, a worker's
 * dispatch): stage `review`, the phase and outcome, and `sha256(item id)` — never the id, arguments or text.
 * Answers the record's correlation id.
 */
export async function recordReviewDecision(
  evidence: EvidenceRecorder,
  record: {
    readonly capability: string;
    readonly toolKind: ToolKind;
    readonly decision: Decision;
    readonly phase: ReviewPhase;
    readonly outcome: string;
    readonly itemId: string;
    readonly now: Date;
  },
): Promise<string> {
  const { decision } = record;
  const correlationId = evidenceId();
  await evidence.recordDecision(
    decisionRecord(
      {
        id: evidenceId(),
        correlationId,
        sequence: 0,
        capability: record.capability,
        toolKind: record.toolKind,
        stage: decision.stage,
        disposition: decision.disposition,
        reason: decision.reason,
        recordedAt: record.now,
      },
      {
        approvalPhase: record.phase,
        approvalOutcome: record.outcome,
        receiptFingerprint: reviewItemFingerprint(record.itemId),
      },
    ),
  );
  return correlationId;
}
