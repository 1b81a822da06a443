import { InvalidRateLimitRequestError } from '../errors/invalid-rate-limit-request.error.js';
import { MAX_RATE_LIMIT, isWindowSeconds } from './fixed-window.js';
import type { RateLimitRequest } from './rate-limit-store.interface.js';

/**
 * Throws {@link InvalidRateLimitRequestError} unless `request` is one every engine counts alike: a `limit` that is a
 * whole number from 0 (admits nothing) to {@link MAX_RATE_LIMIT}, a `windowSeconds` of {@link isWindowSeconds} and a
 * valid `windowStart` Date. What every `RateLimitStore` checks before it touches a window: a few comparisons, on the
 * hot path of every rate-limited call.
 */
export function assertRateLimitRequest({ limit, windowSeconds, windowStart }: RateLimitRequest): void {
  if (!(Number.isInteger(limit) && limit >= 0 && limit <= MAX_RATE_LIMIT))
    throw new InvalidRateLimitRequestError('limit', limit);
  if (!isWindowSeconds(windowSeconds)) throw new InvalidRateLimitRequestError('windowSeconds', windowSeconds);
  if (!(windowStart instanceof Date && Number.isFinite(windowStart.getTime())))
    throw new InvalidRateLimitRequestError('windowStart', windowStart);
}
