import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import { windowStartOf } from './fixed-window.js';
import type { RateLimitOptions } from './rate-limit-options.interface.js';

/**
 * The fingerprint of the capability's fixed-window bucket (`rateLimit`) for this call:
 * `sha256(JCS({capability, policy, algorithm, window_seconds, binding}))`. Its `key` is the application's code: a key
 * that throws, or answers a value that is not plain JSON (`NonCanonicalValueError`), throws here, so the pipeline
 * calls this before any gate spends anything.
 */
export function rateLimitBucketOf({ definition, envelope, target }: GateRequest): string {
  const policy = definition.rateLimit!;
  return fingerprint({
    capability: definition.name,
    policy: policy.name,
    algorithm: policy.algorithm,
    window_seconds: policy.windowSeconds,
    binding: policy.key(envelope, target),
  });
}

/**
 * Step 11: consume one unit of the capability's fixed-window bucket (`bucketFingerprint`, from
 * {@link rateLimitBucketOf}). A store failure propagates (it is never a `throttle`). The unit is spent once the store
 * answers, so the trail is marked mutated before the decision is recorded.
 */
export async function consumeRateLimit(
  { rateLimits }: RateLimitOptions,
  { definition, clock, trail }: GateRequest,
  bucketFingerprint: string,
): Promise<Decision> {
  const now = clock();
  const policy = definition.rateLimit!;
  const { limit, windowSeconds } = policy;
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
