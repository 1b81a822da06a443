import { pruneEnded } from '../shared/prune-ended.js';
import { assertRateLimitRequest } from './rate-limit-request.js';
import type { RateLimitConsumption, RateLimitRequest, RateLimitStore } from './rate-limit-store.interface.js';

/**
 * Fixed-window counters in process memory: for tests and single-process development only. A malformed request is
 * refused with `InvalidRateLimitRequestError` before a window is touched, as by every store.
 */
export class InMemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  async consume(request: RateLimitRequest): Promise<RateLimitConsumption> {
    assertRateLimitRequest(request);
    const { bucketFingerprint, windowStart, windowSeconds, limit } = request;
    const key = `${bucketFingerprint}@${windowStart.getTime()}`;
    const resetAt = new Date(windowStart.getTime() + windowSeconds * 1000);
    const window = this.windows.get(key) ?? { count: 0, endsAt: resetAt.getTime() };
    const allowed = window.count < limit;
    if (allowed) this.windows.set(key, { ...window, count: window.count + 1 });
    const count = allowed ? window.count + 1 : window.count;
    return { allowed, count, remaining: Math.max(0, limit - count), resetAt };
  }

  async prune(now: Date): Promise<number> {
    return pruneEnded(this.windows, now);
  }
}
