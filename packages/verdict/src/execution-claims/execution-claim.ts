import type { ExecutionClaimStatus } from './execution-claim-status.js';

/**
 * One logical operation's admission record. The binding is stored only as a fingerprint; the
 * tool-call id is never part of it.
 */
export interface ExecutionClaim {
  /** Unpredictable, stable across re-claims: the execution identity handed to the executor. */
  readonly id: string;
  readonly capability: string;
  /** The `atMostOnce` policy name. */
  readonly policy: string;
  /** `sha256(JCS({capability, policy, binding}))`: unique. */
  readonly bindingFingerprint: string;
  readonly status: ExecutionClaimStatus;
  /** 1 on first admission; + 1 each time a released claim is re-claimed. */
  readonly attempt: number;
  readonly claimedAt: Date;
  readonly updatedAt: Date;
  /** Set by an operator's resolution: an opaque application id (`operator:7`), never PII. */
  readonly resolvedBy: string | null;
  /**
   * Who actually ran the resolution, as the operator-identity hook reported it, next to `resolvedBy`
   * (the CLI's default: `os:<user>` of the OS account that ran it); `null` when none was given.
   */
  readonly operatorIdentity: string | null;
  readonly resolutionReason: string | null;
  readonly resolvedAt: Date | null;
}
