import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { Envelope } from '../vocabulary/envelope.js';

/** A resolver that may read the validated arguments (built by {@link fromProposal}). */
export interface ProposalTargetResolver<
  TArgs = unknown,
  TTarget = unknown,
  THost = any,
  TContext extends AnyActionContext = ActionContext,
> {
  readonly from: 'proposal';
  readonly resolve: (envelope: Envelope<TArgs, TContext>, host: THost) => TTarget | Promise<TTarget>;
}

/** A resolver that sees only the action context (built by {@link fromContext}): it fits every argument type. */
export interface ContextTargetResolver<
  TTarget = unknown,
  THost = any,
  TContext extends AnyActionContext = ActionContext,
> {
  readonly from: 'context';
  readonly resolve: (context: TContext, host: THost) => TTarget | Promise<TTarget>;
}

/**
 * Resolves the canonical resource a proposal is about. `fromProposal` may read the validated arguments;
 * `fromContext` sees only the server's action context, so the model cannot steer it at all.
 * Throw `TargetNotResolvable` for an expected miss; any other exception is an application fault.
 *
 * `host` is the provider instance that declares the capability with `@Capability` (so resolvers can use
 * its injected repositories), or the `host` given to `defineCapability`; annotate it in the callback.
 * Its `TTarget` is the executor's `action.target`.
 */
export type TargetResolver<
  TArgs = unknown,
  TTarget = unknown,
  THost = any,
  TContext extends AnyActionContext = ActionContext,
> = ProposalTargetResolver<TArgs, TTarget, THost, TContext> | ContextTargetResolver<TTarget, THost, TContext>;

/**
 * Inline in `@Capability({...})` or `defineCapability`, `TArgs` comes from the capability's `arguments`
 * schema; standalone, name it (`fromProposal<OrderIdArguments, Order, OrderSource>(...)`).
 *
 * @example resolveTarget: fromProposal(({ arguments: a, context }, self: OrderCapabilities) => self.orders.findInTenant(context.tenant, a.orderId))
 */
export function fromProposal<TArgs, TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(
  resolve: (envelope: Envelope<TArgs, TContext>, host: THost) => TTarget | Promise<TTarget>,
): ProposalTargetResolver<TArgs, TTarget, THost, TContext> {
  return { from: 'proposal', resolve };
}

/** @example resolveTarget: fromContext((context, self: CartCapabilities) => self.carts.currentFor(context.actor)) */
export function fromContext<TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(
  resolve: (context: TContext, host: THost) => TTarget | Promise<TTarget>,
): ContextTargetResolver<TTarget, THost, TContext> {
  return { from: 'context', resolve };
}
