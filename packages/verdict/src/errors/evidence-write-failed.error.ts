import { VerdictError } from './verdict.error.js';

/** The evidence recorder failed before any mutating gate: the action is stopped, nothing executed. */
export class EvidenceWriteFailedError extends VerdictError {
  readonly code = 'VERDICT_EVIDENCE_WRITE_FAILED';

  constructor(capability: string, stage: string, cause: unknown) {
    super(
      'Evidence could not be recorded, so the action was stopped before execution. Check the evidence store.',
      { capability, stage },
      { cause },
    );
  }
}
