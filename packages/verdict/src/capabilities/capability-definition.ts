import type { AuthorizedAction } from '../pipeline/authorized-action.js';
import type { CapabilityOptions } from './capability-options.interface.js';

/** Runs the side effect. Receives only what the pipeline authorized. */
export type CapabilityExecutor<TArgs = any, TTarget = any, TOutput = unknown> = (action: AuthorizedAction<TArgs, TTarget>) => TOutput | Promise<TOutput>;

/**
 * A registered capability: its options, its executor (the decorated method, or the builder's
 * function) and where it was declared, for error messages.
 */
export interface CapabilityDefinition<TArgs = any, TTarget = any, TOutput = unknown> extends CapabilityOptions<TArgs, TTarget> {
  readonly executor: CapabilityExecutor<TArgs, TTarget, TOutput> | null;
  /** The declaring provider instance, handed to resolvers and refreshes; `null` when none was given. */
  readonly host: unknown;
  readonly declaredAt: string;
}
