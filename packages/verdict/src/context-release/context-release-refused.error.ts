import { VerdictError } from '../errors/verdict.error.js';
import type { ReleaseResult } from './release-result.js';

/**
 * A release that was denied where the caller cannot continue without it, e.g. before a model provider is
 * called: nothing was sent. The reason is internal; do not show this error's message to the model.
 */
export class ContextReleaseRefusedError extends VerdictError {
  readonly code = 'VERDICT_CONTEXT_RELEASE_REFUSED';
  readonly reason: string;
  readonly recordId: string;

  constructor(result: Pick<ReleaseResult, 'reason' | 'recordId'>, route: string) {
    super(
      `Context release on route ${route} was refused (${result.reason}): nothing was sent. See release record ${result.recordId}.`,
      {
        route,
        reason: result.reason,
        recordId: result.recordId,
      },
    );
    this.reason = result.reason;
    this.recordId = result.recordId;
  }
}
