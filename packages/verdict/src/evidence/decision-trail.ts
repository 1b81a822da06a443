import type { EventEmitter2 } from '@nestjs/event-emitter';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import { EvidenceTrail } from './evidence-trail.js';
import { reportLateEvidenceFailure } from './late-evidence-failure.js';
import type { ToolKind } from './tool-kind.js';
import { evidenceId } from './evidence-id.js';

/**
 * The evidence trail of one decision made outside a pipeline run — a reviewer's or an approver's decision, an
 * operator's re-queue — with the pipeline's rule (ADR 0022): what is recorded before the mutating step is
 * written by `beforeMutation()`, and a failure there stops the step (`EvidenceWriteFailedError`); after
 * `markMutated()` a failure is reported as `EvidenceWriteFailed` and the step's result stands.
 */
export function decisionTrail(request: {
  readonly evidence: EvidenceRecorder;
  readonly clock: () => Date;
  readonly capability: string;
  readonly toolKind: ToolKind;
  readonly events?: EventEmitter2;
}): EvidenceTrail {
  const { evidence, clock, capability, toolKind, events } = request;
  return new EvidenceTrail(evidence, clock, evidenceId(), capability, toolKind, (failure) =>
    reportLateEvidenceFailure(events, failure),
  );
}
