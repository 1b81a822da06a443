import { VerdictError } from './verdict.error.js';

/**
 * A protected capability was invoked outside any action context. Bind one with `ActionContextInterceptor`
 * (HTTP) or `ActionContextStore.run(context, fn)` (workers, queues, scripts).
 */
export class MissingActionContextError extends VerdictError {
  readonly code = 'VERDICT_MISSING_ACTION_CONTEXT';

  constructor(capability?: string) {
    super(
      'No valid action context is bound: the actor and tenant must come from the server (an actor that is not blank, and a tenant that is a non-blank string or null). Apply ActionContextInterceptor to an authenticated route or call ActionContextStore.run(context, fn).',
      { capability },
    );
  }
}
