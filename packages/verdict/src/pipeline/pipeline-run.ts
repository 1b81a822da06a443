import type { ApprovalChallenge } from '../approvals/approval-challenge.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { ToolCallSubject } from '../telemetry/tool-call-span.js';

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

  constructor(
    readonly trail: EvidenceTrail,
    /** What the run's `execute_tool` span names. */
    readonly subject: ToolCallSubject,
    readonly explicitApproval: boolean,
    /** `false` for `evaluate`: a dry run issues no receipt. */
    readonly issueReceipts: boolean,
  ) {}
}
