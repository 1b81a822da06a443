import type { RateLimitOptions } from '../rate-limits/rate-limit-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { ExecutionClaimStore } from './execution-claim-store.interface.js';

/**
 * What execution claims read of the module options: their store, and the rate-limit store and clock that
 * `ExecutionClaimsService` (the operator's view of both durable gates) reads too.
 */
export interface ExecutionClaimOptions extends RateLimitOptions, ClockOptions {
  /**
   * Where execution claims live. Required when any capability uses `atMostOnce` (checked at boot). A value given
   * is checked at every boot: `null`, `{}` or a store missing a method is a `VerdictConfigurationError`.
   */
  readonly executionClaims?: ExecutionClaimStore;
}

/** Injects the module's {@link ExecutionClaimOptions} (provided by the core module). */
export const EXECUTION_CLAIM_OPTIONS = Symbol('VerdictExecutionClaimOptions');
