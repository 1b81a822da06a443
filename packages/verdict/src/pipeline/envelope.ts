import type { ActionContext } from '../context/action-context.js';

/** A proposal bound to the server's context: validated arguments, an id that correlates evidence, a time. */
export interface Envelope<TArgs = unknown> {
  readonly id: string;
  readonly capability: string;
  /** Validated against the capability's schema; still model-chosen values. */
  readonly arguments: TArgs;
  readonly toolCallId: string | null;
  readonly context: ActionContext;
  readonly createdAt: Date;
}
