import type { ExecutionClaimStore } from './execution-claim-store.interface.js';

/** What execution claims read of the module options. */
export interface ExecutionClaimOptions {
  /** Where execution claims live. Required when any capability uses `atMostOnce` (checked at boot). */
  readonly executionClaims?: ExecutionClaimStore;
}
