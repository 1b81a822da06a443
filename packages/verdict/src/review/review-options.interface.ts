import type { AuthorizationOptions } from '../authorization/authorization-options.interface.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ExecutionClaimOptions } from '../execution-claims/execution-claim-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { ReviewEndpointHooks } from './review-endpoint-hooks.interface.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';

/**
 * What the review lane reads of the module options: the lane and its hooks, the execution claims a reviewed run
 * takes, and the abilities, actor key and clock.
 */
export interface ReviewOptions extends AuthorizationOptions, ActionContextOptions, ExecutionClaimOptions, ClockOptions {
  /**
   * The review lane and deferred execution (docs/review-lane.md): review items, the queue, and how a worker
   * rehydrates the requester. Required when any capability uses `requiresReview` (checked at boot), and for
   * `VerdictService.enqueue`.
   */
  readonly review?: ReviewLaneOptions;
  /** The application's hooks for `@ReviewEndpoint()` routes. */
  readonly reviewEndpoint?: ReviewEndpointHooks;
}

/** Injects the module's {@link ReviewOptions} (provided by the core module). */
export const REVIEW_OPTIONS = Symbol('VerdictReviewOptions');
