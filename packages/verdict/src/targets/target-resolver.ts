import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { ArgumentSchema } from '../capabilities/argument-schema.js';

/** A resolver that may read the validated arguments (built by {@link fromProposal}). */
export interface ProposalTargetResolver<
  TArgs = unknown,
  TTarget = unknown,
  THost = any,
  TContext extends AnyActionContext = ActionContext,
> {
  readonly from: 'proposal';
  readonly resolve: ProposalResolve<TArgs, TTarget, THost, TContext>;
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

/** The resolver of a proposal: what {@link fromProposal} is given. */
export type ProposalResolve<TArgs, TTarget, THost = any, TContext extends AnyActionContext = ActionContext> = (
  envelope: Envelope<TArgs, TContext>,
  host: THost,
) => TTarget | Promise<TTarget>;

/**
 * A resolver that reads the validated arguments. Give it the capability's schema first and it is typed inline:
 * the envelope's arguments are the schema's type, and the target type it returns types the execution-target
 * policy, the gates and the executor of the capability it is written in.
 *
 * @example resolveTarget: fromProposal(orderId, ({ arguments: a, context }, self: OrderCapabilities) => self.orders.findInTenant(context.tenant, a.orderId))
 */
export function fromProposal<TArgs, TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(
  schema: ArgumentSchema<TArgs>,
  resolve: ProposalResolve<TArgs, TTarget, THost, TContext>,
): ProposalTargetResolver<TArgs, TTarget, THost, TContext>;
/**
 * Without the schema, name the argument type (`fromProposal<OrderIdArguments, Order, OrderSource>(...)`) or
 * annotate the envelope: TypeScript cannot infer it from the capability around the call.
 */
export function fromProposal<TArgs, TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(
  resolve: ProposalResolve<TArgs, TTarget, THost, TContext>,
): ProposalTargetResolver<TArgs, TTarget, THost, TContext>;
export function fromProposal(
  schemaOrResolve: ArgumentSchema | ProposalResolve<unknown, unknown>,
  resolve?: ProposalResolve<unknown, unknown>,
): ProposalTargetResolver {
  // The schema only types the call: the capability validates its own `arguments`.
  return { from: 'proposal', resolve: resolve ?? (schemaOrResolve as ProposalResolve<unknown, unknown>) };
}

/** @example resolveTarget: fromContext((context, self: CartCapabilities) => self.carts.currentFor(context.actor)) */
export function fromContext<TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(
  resolve: (context: TContext, host: THost) => TTarget | Promise<TTarget>,
): ContextTargetResolver<TTarget, THost, TContext> {
  return { from: 'context', resolve };
}
