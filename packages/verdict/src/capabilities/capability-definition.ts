import type { AnyActionContext } from '../context/action-context.js';
import type { AuthorizedAction } from '../vocabulary/authorized-action.js';
import type { CapabilityOptions } from './capability-options.interface.js';

/**
 * Runs the side effect. Receives only what the pipeline authorized. The defaults (`any`) are the erased
 * form a registry of many capabilities holds; `defineCapability` and `@Capability` infer the real types.
 */
export type CapabilityExecutor<
  TArgs = any,
  TTarget = any,
  TOutput = unknown,
  TContext extends AnyActionContext = any,
> = (action: AuthorizedAction<TArgs, TTarget, TContext>) => TOutput | Promise<TOutput>;

/**
 * A registered capability: its options, its executor (the decorated method, or the builder's
 * function) and where it was declared, for error messages. The bare `CapabilityDefinition` is the erased
 * form the registry holds (every capability fits it); `defineCapability` returns the typed one.
 */
export interface CapabilityDefinition<
  TArgs = any,
  TTarget = any,
  TOutput = unknown,
  TContext extends AnyActionContext = any,
> extends CapabilityOptions<TArgs, TTarget, TContext> {
  readonly executor: CapabilityExecutor<TArgs, TTarget, TOutput, TContext> | null;
  /** The declaring provider instance, handed to resolvers and refreshes; `null` when none was given. */
  readonly host: unknown;
  readonly declaredAt: string;
}
