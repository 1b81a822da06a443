import type { ActionContext } from '../context/action-context.js';
import type { Envelope } from '../pipeline/envelope.js';

/**
 * Resolves the canonical resource a proposal is about. `fromProposal` may read the validated arguments;
 * `fromContext` sees only the server's action context, so the model cannot steer it at all.
 * Throw `TargetNotResolvable` for an expected miss; any other exception is an application fault.
 */
export type TargetResolver<TArgs = unknown, TTarget = unknown> =
  | { readonly from: 'proposal'; readonly resolve: (envelope: Envelope<TArgs>) => TTarget | Promise<TTarget> }
  | { readonly from: 'context'; readonly resolve: (context: ActionContext) => TTarget | Promise<TTarget> };

/** @example resolveTarget: fromProposal(({ arguments: a, context }) => orders.findForTenant(context.tenant, a.orderId)) */
export function fromProposal<TArgs, TTarget>(resolve: (envelope: Envelope<TArgs>) => TTarget | Promise<TTarget>): TargetResolver<TArgs, TTarget> {
  return { from: 'proposal', resolve };
}

/** @example resolveTarget: fromContext((context) => carts.currentFor(context.actor)) */
export function fromContext<TTarget>(resolve: (context: ActionContext) => TTarget | Promise<TTarget>): TargetResolver<any, TTarget> {
  return { from: 'context', resolve };
}
