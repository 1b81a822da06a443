import type { ExecutionContext } from '@nestjs/common';
import type { Approver } from '../approvals/approval-endpoint-hooks.interface.js';
import type { HookPresence } from '../shared/hooks-object.js';

/** The application's side of `@ReviewEndpoint()`: who the authenticated reviewer is, and which item the route names. */
export interface ReviewEndpointHooks {
  /**
   * The authenticated reviewer of this request (after your auth guard), or `null` or `undefined` (→ 401). An answer
   * that is not an object, or whose `id` is not a non-blank string, names nobody either (→ 401).
   */
  reviewer(executionContext: ExecutionContext): Approver | null | undefined | Promise<Approver | null | undefined>;
  /** The review item id this request is about. Default: the `itemId` route parameter. */
  itemId?(executionContext: ExecutionContext): string | undefined;
}

/** Each hook of {@link ReviewEndpointHooks}, with whether it is required: what the boot checks (`assertHooks`). */
export const REVIEW_ENDPOINT_HOOKS = {
  reviewer: 'required',
  itemId: 'optional',
} as const satisfies Record<keyof ReviewEndpointHooks, HookPresence>;
