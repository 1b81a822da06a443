import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { type InferredFromCapability, inferredFromCapability } from '../capabilities/inferred-from-capability.js';

/** How the execution target is obtained after the proposal-stage checks. */
export const TargetStrategy = {
  Refresh: 'refresh',
  AcceptStaleSnapshot: 'accept_stale_snapshot',
} as const;

export type TargetStrategy = (typeof TargetStrategy)[keyof typeof TargetStrategy];

/** The stable identity of a target (tenant, type, primary key): fingerprinted before and after refresh. */
export type TargetIdentity<TTarget, TContext extends AnyActionContext = ActionContext> = (
  target: TTarget,
  context: TContext,
) => JsonValue;

/**
 * Reads the target again from trusted inputs only: the resolved proposal target and the action context
 * (and the capability's `host`, as for resolvers). It never sees the model's arguments. Throw
 * `TargetNotResolvable` when the resource is gone, to record why; a refresh that answers `null` or `undefined`
 * (a `findOneBy` that found nothing) is denied at `target_refresh` too (`refresh: the target is gone`).
 */
export type TargetRefresh<TTarget, THost = any, TContext extends AnyActionContext = ActionContext> = (
  proposalTarget: TTarget,
  context: TContext,
  host: THost,
) => TTarget | Promise<TTarget>;

/**
 * Every capability chooses, explicitly, what it executes against (docs/architecture.md steps 6–8).
 *
 * @example
 * ExecutionTargetPolicy.refresh({
 *   name: 'order-primary-key',
 *   identity: (order) => ({ tenant: order.tenantId, type: 'order', id: order.id }),
 *   refresh: async (order) => (await orders.findOneBy({ id: order.id, tenantId: order.tenantId })) ?? TargetNotResolvable.throw('order is gone'),
 * })
 */
export class ExecutionTargetPolicy<TTarget = unknown, TContext extends AnyActionContext = ActionContext> {
  private constructor(
    /** Names the policy in evidence and fingerprints. */
    readonly name: string,
    readonly strategy: TargetStrategy,
    readonly identity: TargetIdentity<TTarget, TContext>,
    readonly refresh: TargetRefresh<TTarget, any, TContext> | null,
  ) {}

  /** Re-reads the target before execution; any identity difference denies (resource substitution). */
  static refresh<TTarget, THost = any, TContext extends AnyActionContext = ActionContext>(options: {
    name: string;
    identity: TargetIdentity<TTarget, TContext>;
    refresh: TargetRefresh<TTarget, THost, TContext>;
  }): TypedExecutionTargetPolicy<TTarget, TContext> {
    return inferredFromCapability(
      new ExecutionTargetPolicy(options.name, TargetStrategy.Refresh, options.identity, options.refresh),
    );
  }

  /**
   * Executes against the proposal-stage snapshot. Only for immutable or request-local targets: a
   * deliberate, visible choice (silent snapshot reuse is impossible).
   */
  static acceptStaleSnapshot<TTarget, TContext extends AnyActionContext = ActionContext>(options: {
    name: string;
    identity: TargetIdentity<TTarget, TContext>;
  }): TypedExecutionTargetPolicy<TTarget, TContext> {
    return inferredFromCapability(
      new ExecutionTargetPolicy(options.name, TargetStrategy.AcceptStaleSnapshot, options.identity, null),
    );
  }
}

/**
 * What `ExecutionTargetPolicy.refresh` and `.acceptStaleSnapshot` return: inline in a capability, `TTarget` is the
 * resolver's target type.
 */
export interface TypedExecutionTargetPolicy<TTarget, TContext extends AnyActionContext = ActionContext>
  extends ExecutionTargetPolicy<TTarget, TContext>, InferredFromCapability {}
