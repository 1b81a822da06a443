import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import { windowStartOf } from './fixed-window.js';
import type { RateLimitOptions } from './rate-limit-options.interface.js';

/**
 * Step 11: consume one unit of the capability's fixed-window bucket (`rateLimit`) for the execution target. A
 * store failure propagates (it is never a `throttle`). The unit is spent once the store answers, so the trail
 * is marked mutated before the decision is recorded.
 */
export async function consumeRateLimit(
  { rateLimits }: RateLimitOptions,
  { definition, envelope, target, clock, trail }: GateRequest,
): Promise<Decision> {
  const now = clock();
  const policy = definition.rateLimit!;
  const { name, limit, windowSeconds } = policy;
  const bucketFingerprint = fingerprint({
    capability: definition.name,
    policy: name,
    algorithm: policy.algorithm,
    window_seconds: windowSeconds,
    binding: policy.key(envelope, target),
  });
  await trail.beforeMutation();
  const consumption = await rateLimits!.consume({
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
