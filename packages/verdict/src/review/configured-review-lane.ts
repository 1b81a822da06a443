import { type ActorKey, moduleActorKey } from '../context/actor-key.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ReviewOptions } from './review-options.interface.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';

/**
 * The lane with the module's key, per lane object and module key: one lane object handed to two applications in one
 * process (a shared configuration constant) keys each application's items by that application's `actorKey`
 * (ADR 0206). The module key is `moduleActorKey`'s, one bound function per options object and key.
 */
const resolved = new WeakMap<ReviewLaneOptions, WeakMap<ActorKey, ReviewLaneOptions>>();

/**
 * The module's review lane, its `actorKey` defaulting to the module's `actorKey` (one identity for receipts,
 * review items, trajectories and containment).
 *
 * @throws VerdictConfigurationError when no review lane is configured.
 */
export function configuredReviewLane(options: Pick<ReviewOptions, 'review' | 'actorKey'>): ReviewLaneOptions {
  const lane = options.review;
  if (lane === undefined)
    throw new VerdictConfigurationError('No review lane is configured: pass `review` to VerdictModule.forRoot.');
  if (lane.actorKey !== undefined || options.actorKey === undefined) return lane;
  const actorKey = moduleActorKey(options)!;
  let byModuleKey = resolved.get(lane);
  if (byModuleKey === undefined) resolved.set(lane, (byModuleKey = new WeakMap()));
  let withKey = byModuleKey.get(actorKey);
  if (withKey === undefined) {
    withKey = Object.freeze(Object.assign(Object.create(lane) as ReviewLaneOptions, { actorKey }));
    byModuleKey.set(actorKey, withKey);
  }
  return withKey;
}
