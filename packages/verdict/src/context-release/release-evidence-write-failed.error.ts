import { VerdictError } from '../errors/verdict.error.js';

/** The release record could not be written, so nothing was released (fail closed). Check the evidence store. */
export class ReleaseEvidenceWriteFailedError extends VerdictError {
  readonly code = 'VERDICT_RELEASE_EVIDENCE_WRITE_FAILED';

  constructor(route: string, cause: unknown) {
    super(
      'Release evidence could not be recorded, so nothing was released. Check the evidence store.',
      { route, stage: 'context_release' },
      { cause },
    );
  }
}
