import type { ActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { DeferredQueue } from '../queue/deferred-queue.interface.js';
import type { ReviewItemStore } from './review-item-store.interface.js';

/** Who asked for a review item, as the worker hands it to `rehydrate`. */
export interface ReviewRequester {
  readonly capability: string;
  /** `actorKey(actor)` of the requester when the item was parked. */
  readonly actorKey: JsonValue;
  readonly tenant: string | null;
  readonly conversationId: string | number | null;
}

/** What every review lane has, whether its process works the queue or not. */
interface ReviewLaneBase {
  /** Where review items live (`TypeOrmReviewItemStore`, or `InMemoryReviewItemStore` in tests). */
  readonly items: ReviewItemStore;
  /** Where approved items wait for a worker (`InProcessDeferredQueue`, or the BullMQ adapter). */
  readonly queue: DeferredQueue;
  /**
   * The actor's stable identity for capabilities whose `requiresReview` names no `actorKey` (and for
   * `VerdictService.enqueue`): bound into items, compared with reviewers, handed to `rehydrate`.
   * Default: the module's `actorKey`; a `requiresReview` capability with no key anywhere is a boot error.
   *
   * @example actorKey: (actor: User) => actor.id
   */
  actorKey?(actor: any): JsonValue;
}

/** The lane of a process that works the queue (runs deferred jobs): it rehydrates each job's requester. */
export interface WorkingReviewLaneOptions extends ReviewLaneBase {
  /**
   * The requester's action context as the application's trusted store knows them *now* (a fresh user row,
   * current roles, still in the tenant), or `null` when they are gone (→ the run is refused). Never
   * rebuild it from the job or the item alone: the worker re-authorizes with this context, so a revoked
   * permission or a deactivated account denies. The context's actor must give the same `actorKey`. An answer that is
   * no action context (`{ actor }` without the `tenant: null` of a tenant-less app, a blank tenant or actor) is a
   * wiring fault, never a refusal: the job fails with `VerdictConfigurationError` and the item stays `approved`.
   */
  rehydrate(requester: ReviewRequester): ActionContext | null | Promise<ActionContext | null>;
  /** Whether this process works the queue (runs deferred jobs). Default: `true`; `false` for web-only processes. */
  readonly work?: true;
}

/**
 * The lane of a web-only process (`work: false`): it parks proposals, lets reviewers decide and queues approved
 * items for a worker elsewhere, and runs no job, so it needs no `rehydrate` (nor an execution-claim store).
 */
export interface WebOnlyReviewLaneOptions extends ReviewLaneBase {
  /** As {@link WorkingReviewLaneOptions.rehydrate}; optional here, needed only if the queue is worked by hand. */
  rehydrate?(requester: ReviewRequester): ActionContext | null | Promise<ActionContext | null>;
  /** `false`: this process does not work the queue. */
  readonly work: false;
}

/**
 * `VerdictModule.forRoot({ review })`: the review lane's store, queue and the requester lookup. A process that works
 * the queue (`work` absent or `true`) must give `rehydrate`; a web-only one (`work: false`) may leave it out. The
 * boot check (`assertReviewLane`) holds the same rule for callers the type does not reach.
 */
export type ReviewLaneOptions = WorkingReviewLaneOptions | WebOnlyReviewLaneOptions;
