import type { ActionContext, AnyActionContext } from '../context/action-context.js';

/**
 * A proposal bound to the server's context: validated arguments, an id that correlates evidence, a time.
 * `TArgs` is the capability's schema type (`z.infer` of a zod schema, a DTO class's instance type);
 * `TContext` the application's registered {@link ActionContext}, or a library's own.
 */
export interface Envelope<TArgs = unknown, TContext extends AnyActionContext = ActionContext> {
  readonly id: string;
  readonly capability: string;
  /** Validated against the capability's schema; still model-chosen values. */
  readonly arguments: TArgs;
  readonly toolCallId: string | null;
  readonly context: TContext;
  readonly createdAt: Date;
}
