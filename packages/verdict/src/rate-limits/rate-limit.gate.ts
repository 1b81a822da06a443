import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { FixedWindowPolicy } from './fixed-window.js';
import { windowStartOf } from './fixed-window.js';
import type { RateLimitStore } from './rate-limit-store.interface.js';

/**
 * Step 11: consume one unit of the capability's fixed-window bucket for the execution target. A store
 * failure propagates (it is never a `throttle`). The unit is spent once the store answers, so the trail
 * is marked mutated before the decision is recorded.
 */
export async function consumeRateLimit(
  store: RateLimitStore,
  policy: FixedWindowPolicy,
  capability: string,
  envelope: Envelope,
  target: unknown,
  now: Date,
  trail: EvidenceTrail,
): Promise<Decision> {
  const { name, limit, windowSeconds } = policy;
  const bucketFingerprint = fingerprint({
    capability,
    policy: name,
    algorithm: policy.algorithm,
    window_seconds: windowSeconds,
    binding: policy.key(envelope, target),
  });
  await trail.beforeMutation();
  const consumption = await store.consume({
    bucketFingerprint,
    windowStart: windowStartOf(now, windowSeconds),
    windowSeconds,
    limit,
  });
  trail.markMutated();
  const decision = consumption.allowed
    ? Decision.permit(Stage.RateLimit)
    : Decision.of(Disposition.Throttle, Stage.RateLimit, policy.reason);
  trail.record(decision, {
    rateLimitKeyFingerprint: bucketFingerprint,
    rateLimitLimit: limit,
    rateLimitRemaining: consumption.remaining,
    rateLimitResetAt: consumption.resetAt,
  });
  return decision;
}
