import { moduleActorKey } from '../context/actor-key.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ReviewOptions } from './review-options.interface.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';

const resolved = new WeakMap<ReviewLaneOptions, ReviewLaneOptions>();

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
  let withKey = resolved.get(lane);
  if (withKey === undefined) {
    const actorKey = moduleActorKey(options)!;
    withKey = Object.freeze(Object.assign(Object.create(lane) as ReviewLaneOptions, { actorKey }));
    resolved.set(lane, withKey);
  }
  return withKey;
}
