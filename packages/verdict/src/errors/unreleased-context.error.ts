import { VerdictError } from './verdict.error.js';

/**
 * A model call would have carried data that was not released for the guard's destination: a tool result
 * without a release route, a tool message the guard did not release, or structured context (JSON or
 * non-text content) that did not come from `ModelInputGuard.contextMessage`, a tool message replayed for another
 * tool call, a system prompt neither registered nor sealed. The provider was not called.
 */
export class UnreleasedContextError extends VerdictError {
  readonly code = 'VERDICT_UNRELEASED_CONTEXT';

  constructor(
    what: string,
    destination: string,
    remedy = 'Release it through a route (ModelInputGuard toolResults or contextMessage).',
  ) {
    super(`${what} was not released for ${destination}: the model was not called. ${remedy}`, {
      destination,
    });
  }
}
