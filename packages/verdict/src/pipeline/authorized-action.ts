import type { ActionContext } from '../context/action-context.js';

/**
 * What an executor receives: the refreshed, re-authorized execution target and validated arguments.
 * `executionIdentity` names this admitted execution (the envelope id; the execution claim id once
 * at-most-once admission is configured).
 */
export interface AuthorizedAction<TArgs = unknown, TTarget = unknown> {
  readonly capability: string;
  readonly target: TTarget;
  readonly arguments: TArgs;
  readonly context: ActionContext;
  readonly executionIdentity: string;
}
