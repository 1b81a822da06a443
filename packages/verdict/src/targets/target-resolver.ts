import type { ActionContext } from '../context/action-context.js';
import type { Envelope } from '../pipeline/envelope.js';

/**
 * Resolves the canonical resource a proposal is about. `fromProposal` may read the validated arguments;
 * `fromContext` sees only the server's action context, so the model cannot steer it at all.
 * Throw `TargetNotResolvable` for an expected miss; any other exception is an application fault.
 *
 * `host` is the provider instance that declares the capability with `@Capability` (so resolvers can use
 * its injected repositories), or the `host` given to `defineCapability`.
 */
export type TargetResolver<TArgs = unknown, TTarget = unknown, THost = any> =
  | { readonly from: 'proposal'; readonly resolve: (envelope: Envelope<TArgs>, host: THost) => TTarget | Promise<TTarget> }
  | { readonly from: 'context'; readonly resolve: (context: ActionContext, host: THost) => TTarget | Promise<TTarget> };

/** @example resolveTarget: fromProposal(({ arguments: a, context }, self: OrderCapabilities) => self.orders.findInTenant(context.tenant, a.orderId)) */
export function fromProposal<TArgs, TTarget, THost = any>(
  resolve: (envelope: Envelope<TArgs>, host: THost) => TTarget | Promise<TTarget>,
): TargetResolver<TArgs, TTarget, THost> {
  return { from: 'proposal', resolve };
}

/** @example resolveTarget: fromContext((context, self: CartCapabilities) => self.carts.currentFor(context.actor)) */
export function fromContext<TTarget, THost = any>(
  resolve: (context: ActionContext, host: THost) => TTarget | Promise<TTarget>,
): TargetResolver<any, TTarget, THost> {
  return { from: 'context', resolve };
}
