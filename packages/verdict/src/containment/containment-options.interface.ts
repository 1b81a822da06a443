import type { RateLimitStore } from '../rate-limits/rate-limit-store.interface.js';
import type { ContainmentRule } from './containment-rule.js';
import type { ContainmentStore } from './containment-store.interface.js';

/** Default of {@link ContainmentOptions.cacheTtlMs}: an engagement is refused everywhere within 5 s. */
export const DEFAULT_CONTAINMENT_CACHE_TTL_MS = 5_000;

/** Module option `containment` (docs/containment.md). */
export interface ContainmentOptions {
  /** Where kill switches live. `TypeOrmContainmentStore` shares them between processes and nodes. */
  readonly store: ContainmentStore;
  /**
   * How long a process reuses its last read of the engaged switches, in milliseconds: the bound within
   * which an engagement (or a release) made elsewhere takes effect on this process. The process that
   * engages refuses at once. `0` reads the store on every call. Default: {@link DEFAULT_CONTAINMENT_CACHE_TTL_MS}.
   * Anything but a finite number ≥ 0 (`Infinity`, `NaN`, a negative number) fails the module at boot.
   */
  readonly cacheTtlMs?: number;
  /**
   * Automatic rules on security events; each may contain only the actor or tenant that caused them. Build each
   * with `containmentRule`: a rule it would not build fails the module at boot.
   */
  readonly rules?: readonly ContainmentRule[];
  /**
   * Where rules count events. Default: an `InMemoryRateLimitStore` (per process); pass your
   * `TypeOrmRateLimitStore` to count one actor's events across every node.
   */
  readonly ruleCounters?: RateLimitStore;
}
