import type { ApprovalChallenge } from '../approvals/approval-challenge.js';
import type { ActionContext } from '../context/action-context.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { ToolKind } from '../evidence/tool-kind.js';
import type { DeferredRun } from '../review/review.gate.js';
import type { ToolCallSubject } from '../telemetry/tool-call-span.js';
import type { ProvenanceAssessment } from '../provenance/provenance.stage.js';

/** How a caller invokes the pipeline. */
export interface InvocationOptions {
  /**
   * The caller (a resuming agent, or an application endpoint) explicitly approved this exact tool-call
   * id. Without it an approved receipt is never consumed. "Approve all" decisions do not count.
   */
  readonly explicitApproval?: boolean;
}

/** The state of one proposal's way through the pipeline. */
export class PipelineRun {
  /** Set when the run stops for a human: what the application needs to ask for approval. */
  challenge: ApprovalChallenge | undefined;
  /** The server-side action context, once step 0 has read it. */
  context: ActionContext | undefined;
  /** The actor's fingerprint (`ActorAttribution`), computed once at step 0 for the records and the run's events. */
  actorFingerprint: string | null | undefined;
  /** `sha256(JCS(arguments))`, once step 1 has validated them. */
  argumentsFingerprint: string | null = null;
  /** What the provenance stage (step 1a) found, once it ran: shown to an approver or reviewer of this run. */
  provenance: ProvenanceAssessment | undefined;

  constructor(
    readonly trail: EvidenceTrail,
    readonly toolKind: ToolKind,
    /** What the run's `execute_tool` span names. */
    readonly subject: ToolCallSubject,
    readonly explicitApproval: boolean,
    /** `false` for `evaluate`: a dry run issues no receipt. */
    readonly issueReceipts: boolean,
    /** Set on a worker's re-run of an approved review item (docs/review-lane.md). */
    readonly deferred?: DeferredRun,
  ) {}
}
