import type { RateLimitStore } from './rate-limit-store.interface.js';

/** What rate limits read of the module options. */
export interface RateLimitOptions {
  /**
   * Where rate-limit windows live. Required when any capability uses `rateLimit` (checked at boot). A value given
   * is checked at every boot: `null`, `{}` or a store missing a method is a `VerdictConfigurationError`.
   */
  readonly rateLimits?: RateLimitStore;
}
