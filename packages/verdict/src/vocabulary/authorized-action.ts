import type { ActionContext, AnyActionContext } from '../context/action-context.js';

/**
 * What an executor receives: the refreshed, re-authorized execution target and validated arguments.
 * `executionIdentity` names this admitted execution (the envelope id; the execution claim id once
 * at-most-once admission is configured). `TArgs` comes from the capability's schema, `TTarget` from its
 * resolver and execution-target policy; `@Capability` checks the decorated method's parameter against both.
 */
export interface AuthorizedAction<
  TArgs = unknown,
  TTarget = unknown,
  TContext extends AnyActionContext = ActionContext,
> {
  readonly capability: string;
  readonly target: TTarget;
  readonly arguments: TArgs;
  readonly context: TContext;
  readonly executionIdentity: string;
}
