import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { isWindowSeconds } from '../rate-limits/fixed-window.js';
import { isName } from '../shared/is-name.js';
import { missingMethods } from '../shared/missing-methods.js';
import { notAStore } from '../shared/not-a-store.js';
import { assertOptionalBoolean } from '../shared/optional-boolean.js';
import { assertOptionalFunction } from '../shared/optional-function.js';
import { EXECUTION_CLAIM_STORE_METHODS } from '../execution-claims/execution-claim-store.interface.js';
import { DEFERRED_QUEUE_METHODS } from '../queue/deferred-queue.interface.js';
import { REVIEW_ITEM_STORE_METHODS } from './review-item-store.interface.js';
import type { ReviewOptions } from './review-options.interface.js';
import type { ReviewLaneOptions, WorkingReviewLaneOptions } from './review-lane-options.interface.js';

/**
 * Boot-time checks of a capability's review lane: a well-formed `requiresReview` (a `ttlSeconds` of at most 100 years,
 * `MAX_WINDOW_SECONDS`, as a receipt's: the item's expiry stays a time every engine stores; `actorKey`, `describe` and
 * `reviewer.subject` functions and `reviewer.action` a name when given, else every proposal would fail once its
 * evidence is written, or every reviewer's decision would), no confirmation next to it
 * (the requester confirms or a reviewer reviews, not both), a review lane, an actor key (the capability's, the
 * lane's or the module's, each a function: ADR 0049) and, in a process that works the queue (`work` not `false`), an
 * execution-claim store with every method of one (the deferred run's last gate). A web-only process parks, decides and queues items without one: the worker
 * process's own boot asks for it (`assertReviewLane`). `fail` throws the capability's configuration error.
 */
export function assertReviewConfigured(
  definition: CapabilityDefinition,
  options: ReviewOptions,
  fail: (message: string) => never,
): void {
  const policy = definition.requiresReview;
  if (policy === undefined) return;
  if (typeof policy.bind !== 'function' || typeof policy.reason !== 'string' || policy.reason.trim() === '')
    fail(
      'has requiresReview without bind or reason: use requiresReview({ bind, reason, ttlSeconds, describe, reviewer }).',
    );
  if (policy.ttlSeconds !== undefined && !isWindowSeconds(policy.ttlSeconds))
    fail('has a requiresReview ttlSeconds that is not a positive integer of at most 3,155,760,000 (100 years).');
  if (policy.actorKey !== undefined && typeof policy.actorKey !== 'function')
    fail('has a requiresReview actorKey that is not a function: use actorKey: (actor) => actor.id.');
  if (policy.describe !== undefined && typeof policy.describe !== 'function')
    fail('has a requiresReview describe that is not a function: use describe: (envelope, target) => `…`.');
  const reviewer = policy.reviewer as { action?: unknown; subject?: unknown } | null | undefined;
  if (reviewer !== undefined && (typeof reviewer !== 'object' || reviewer === null))
    fail("has a requiresReview reviewer that is not an object: use reviewer: { action: 'review', subject }.");
  // CASL matches an action by its exact name: one with spaces around it would let no reviewer decide.
  if (reviewer?.action !== undefined && !(isName(reviewer.action) && reviewer.action === reviewer.action.trim()))
    fail("has a requiresReview reviewer.action that is not a CASL action name: use action: 'review'.");
  if (reviewer?.subject !== undefined && typeof reviewer.subject !== 'function')
    fail('has a requiresReview reviewer.subject that is not a function: use subject: (envelope, target) => ({ … }).');
  if (definition.requiresConfirmation !== undefined)
    fail(
      'uses both requiresConfirmation and requiresReview: choose one (the requester confirms, or a reviewer reviews).',
    );
  if (options.review === undefined)
    fail(
      'uses requiresReview, but no review lane is configured: pass `review: { items, queue, rehydrate }` to VerdictModule.forRoot.',
    );
  // Without a key the lane compares whole actor objects: the same person from another session is someone else.
  const keys: unknown[] = [policy.actorKey, options.review?.actorKey, options.actorKey];
  if (!keys.some((key) => typeof key === 'function'))
    fail(
      'uses requiresReview, but no actor key is configured: pass `actorKey: (actor) => actor.id` to VerdictModule.forRoot (or to the review lane, or to requiresReview), so a requester is recognised from any session and never reviews their own item.',
    );
  if (options.review?.work !== false && options.executionClaims === undefined)
    fail(
      'uses requiresReview, but no execution-claim store is configured: a deferred run is admitted by an execution claim (pass `executionClaims`, or `work: false` in a web-only process).',
    );
  const claims = options.review?.work !== false ? notAStoreOfClaims(options) : null;
  if (claims !== null)
    fail(`uses requiresReview, but ${claims}: pass a TypeOrmExecutionClaimStore to VerdictModule.forRoot.`);
}

/**
 * Boot-time checks of the module's review lane, whenever `review` is given: an object, with an item store and a queue
 * that have every method Verdict calls on them, a `work` that is a boolean when given (`'false'` from the environment
 * is refused, never read as "works"), and an `actorKey` and a `rehydrate` that are functions when given; in a
 * process that works the queue (`work` is not `false`), the `rehydrate` hook and an execution-claim store too (each
 * deferred run rehydrates its requester and is admitted by a claim), without which it would boot, take approvals,
 * then fail every job. A web-only process parks, decides and queues items, and needs neither (its type, `WebOnlyReviewLaneOptions`,
 * lets it leave `rehydrate` out; this check holds the rule for untyped callers).
 *
 * @throws VerdictConfigurationError naming what is missing.
 */
export function assertReviewLane(options: ReviewOptions): void {
  const lane = options.review as Partial<ReviewLaneOptions> | null | undefined;
  if (lane === undefined) return;
  if (typeof lane !== 'object' || lane === null)
    throw new VerdictConfigurationError(
      `\`review\` is ${lane === null ? 'null' : `a ${typeof lane}`}, not a review lane: pass review: { items, queue, rehydrate } to VerdictModule.forRoot, or leave it out.`,
      { option: 'review' },
    );
  // A `'false'` from the environment is not `false`: read as "works", a web-only process would work the queue.
  assertOptionalBoolean(lane.work, 'review.work', "work: process.env.VERDICT_WORKER === 'true'");
  const works = lane.work !== false;
  const missing = [
    missingMethods(lane.items, REVIEW_ITEM_STORE_METHODS).length > 0 && 'items (a ReviewItemStore)',
    // A web-only process (`work: false`) only enqueues and closes: its queue need not work.
    missingMethods(lane.queue, works ? DEFERRED_QUEUE_METHODS : ['enqueue', 'close']).length > 0 &&
      'queue (a DeferredQueue)',
    works && typeof lane.rehydrate !== 'function' && 'rehydrate (the requester lookup)',
  ].filter((name) => name !== false);
  if (missing.length > 0)
    throw new VerdictConfigurationError(
      `The review lane needs ${missing.join(', ')}: pass review: { items, queue, rehydrate } to VerdictModule.forRoot.`,
    );
  assertOptionalFunction(lane.actorKey, 'review.actorKey', 'review: { actorKey: (actor) => actor.id }');
  // A web-only process need not give it; given, it is the hook a worker handed a job by hand would call.
  assertOptionalFunction(
    lane.rehydrate,
    'review.rehydrate',
    'review: { rehydrate: (requester) => contextOf(requester) }',
  );
  if (works && options.executionClaims === undefined)
    throw new VerdictConfigurationError(
      'The review lane of a process that works its queue needs an execution-claim store: every deferred run is admitted by an execution claim (pass `executionClaims`, or `work: false` in a web-only process).',
    );
  const claims = works ? notAStoreOfClaims(options) : null;
  if (claims !== null)
    throw new VerdictConfigurationError(
      `The review lane of a process that works its queue needs an execution-claim store, but ${claims}: pass a TypeOrmExecutionClaimStore to VerdictModule.forRoot.`,
      { option: 'executionClaims' },
    );
}

/** Why the configured `executionClaims` is no execution-claim store, or `null` when it is one. */
function notAStoreOfClaims(options: ReviewOptions): string | null {
  return notAStore(options.executionClaims, 'executionClaims', 'ExecutionClaimStore', EXECUTION_CLAIM_STORE_METHODS);
}

/**
 * Before a deferred job runs, in any process: the lane's `rehydrate` hook and an execution-claim store. A process that
 * works its queue was checked at boot; a web-only one (`work: false`) may have neither, and its worker may still be
 * handed a job by hand. Without them the run could not rehydrate its requester nor be admitted by a claim, so nothing
 * runs: the job fails (the queue may retry it) and the item stays `approved` (ADR 0149).
 *
 * @throws VerdictConfigurationError naming what is missing.
 */
export function assertLaneRunsJobs(
  options: ReviewOptions,
  lane: ReviewLaneOptions,
): asserts lane is ReviewLaneOptions & Pick<WorkingReviewLaneOptions, 'rehydrate'> {
  const missing = [
    typeof lane.rehydrate !== 'function' && 'rehydrate hook (the requester lookup)',
    notAStoreOfClaims(options) !== null && 'execution-claim store (`executionClaims`)',
  ].filter((name) => name !== false);
  if (missing.length > 0)
    throw new VerdictConfigurationError(
      `This process runs a deferred job, but its review lane has no ${missing.join(' and no ')}: work the queue in a process configured for it (\`work\` not \`false\`).`,
    );
}
