import { VerdictError } from './verdict.error.js';

/** The evidence recorder failed before any mutating gate: the action is stopped, nothing executed. */
export class EvidenceWriteFailedError extends VerdictError {
  readonly code = 'VERDICT_EVIDENCE_WRITE_FAILED';

  /** `message`: what the failure left behind, where it is not an action stopped before execution (an operator's command). */
  constructor(
    capability: string,
    stage: string,
    cause: unknown,
    message = 'Evidence could not be recorded, so the action was stopped before execution. Check the evidence store.',
  ) {
    super(message, { capability, stage }, { cause });
  }
}
