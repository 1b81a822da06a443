/** One unit of a fixed-window bucket. */
export interface RateLimitRequest {
  /** `sha256(JCS({capability, policy, algorithm: "fixed_window", window_seconds, binding}))`. */
  readonly bucketFingerprint: string;
  /** `floor(t / w) * w`, aligned to the epoch. */
  readonly windowStart: Date;
  readonly windowSeconds: number;
  readonly limit: number;
}

/** Whether the unit was consumed, and what is left in this window. */
export interface RateLimitConsumption {
  readonly allowed: boolean;
  /** Units consumed in this window after this call (equals `limit` when refused). */
  readonly count: number;
  readonly remaining: number;
  readonly resetAt: Date;
}

/**
 * Fixed-window counters (docs/execution-claims-and-rate-limits.md): at the limit, refuse without incrementing. Unique
 * (bucket_fingerprint, window_start). One atomic statement per consumption; store failures propagate
 * and are never reported as `throttle`.
 */
export interface RateLimitStore {
  /**
   * Consumes one unit if the window holds fewer than `limit`. Rejects with `InvalidRateLimitRequestError`, before
   * anything is counted, unless `limit` is a whole number from 0 (admits nothing) to 2,147,483,647, `windowSeconds` a
   * whole number from 1 to 3,155,760,000 and `windowStart` a valid `Date` (`describeRateLimitStoreContract` checks it).
   */
  consume(request: RateLimitRequest): Promise<RateLimitConsumption>;
  /** Deletes rows whose window has ended before `now`; returns how many. */
  prune(now: Date): Promise<number>;
}

/** The methods of a {@link RateLimitStore} Verdict calls (its gate, containment rules, `verdict rate-limits prune`). */
export const RATE_LIMIT_STORE_METHODS = ['consume', 'prune'] as const satisfies readonly (keyof RateLimitStore)[];

/** Injection token of the configured {@link RateLimitStore}. */
export const RateLimitStore = Symbol('RateLimitStore');
