import type { ExecutionClaim } from './execution-claim.js';
import type { ExecutionClaimStatus } from './execution-claim-status.js';

/** What admission asks for. */
export interface ClaimRequest {
  readonly capability: string;
  readonly policy: string;
  readonly bindingFingerprint: string;
  /** A fresh unpredictable id, used only when no row exists yet. */
  readonly candidateId: string;
  readonly now: Date;
}

/** Admission's answer: admitted (inserted, or a released row re-claimed) or refused with the row's state. */
export type ClaimAdmission =
  | { readonly admitted: true; readonly claimId: string; readonly attempt: number }
  | {
      readonly admitted: false;
      readonly claimId: string;
      readonly status: ExecutionClaimStatus;
      readonly attempt: number;
    };

/** An operator's resolution of an unresolved claim. */
export interface ClaimResolutionRequest {
  readonly claimId: string;
  readonly to: typeof ExecutionClaimStatus.Completed | typeof ExecutionClaimStatus.Released;
  readonly by: string;
  /** Who actually ran the resolution (the operator-identity hook); stored next to `by`. Default: `null`. */
  readonly operatorIdentity?: string | null;
  readonly reason: string;
  /** Required to resolve a still-`claimed` claim (its executor may still be running). */
  readonly force: boolean;
  readonly now: Date;
  /**
   * The claim as the resolver read it: resolve only while it is still in this status and attempt (a claim released
   * and admitted again since runs a new executor, which this resolution never releases); otherwise the claim is
   * answered as it is (`invalid_state`, or `force_required`). Default: whatever status and attempt the claim has
   * when the update runs.
   */
  readonly expected?: { readonly status: ExecutionClaimStatus; readonly attempt: number };
}

/** What happened to a resolution request. */
export type ClaimResolution =
  | { readonly outcome: 'resolved'; readonly claim: ExecutionClaim; readonly from: ExecutionClaimStatus }
  | { readonly outcome: 'not_found' }
  | { readonly outcome: 'force_required'; readonly claim: ExecutionClaim }
  | { readonly outcome: 'invalid_state'; readonly claim: ExecutionClaim };

/**
 * Durable at-most-once admission (docs/execution-claims-and-rate-limits.md). Each mutating call is one atomic statement where the
 * engine allows it; adapters fail closed with `OuterTransactionError` when they would join an outer
 * transaction on the same connection. Store failures propagate: they are never policy decisions.
 */
export interface ExecutionClaimStore {
  /** Inserts a `claimed` row, or re-claims a `released` one (attempt + 1); refuses every other state. */
  admit(request: ClaimRequest): Promise<ClaimAdmission>;
  /**
   * `claimed → completed`. `false` when the claim was no longer `claimed` (resolved out of band). With `attempt`,
   * only that attempt: an executor of an attempt an operator released never finishes the claim's next attempt.
   */
  complete(claimId: string, now: Date, attempt?: number): Promise<boolean>;
  /** `claimed → indeterminate`. `false` when the claim was no longer `claimed` (with `attempt`: in that attempt). */
  markIndeterminate(claimId: string, now: Date, attempt?: number): Promise<boolean>;
  /** `claimed|indeterminate → completed|released` by an operator (`claimed` needs `force`). */
  resolve(request: ClaimResolutionRequest): Promise<ClaimResolution>;
  /** Claims still `claimed` or `indeterminate`, oldest first. */
  unresolved(): Promise<ExecutionClaim[]>;
  /** One claim by id, or `null`. */
  find(claimId: string): Promise<ExecutionClaim | null>;
}

/** The methods of an {@link ExecutionClaimStore} Verdict calls (its gates, `ExecutionClaimsService`, the CLI). */
export const EXECUTION_CLAIM_STORE_METHODS = [
  'admit',
  'complete',
  'markIndeterminate',
  'resolve',
  'unresolved',
  'find',
] as const satisfies readonly (keyof ExecutionClaimStore)[];

/** Injection token of the configured {@link ExecutionClaimStore}. */
export const ExecutionClaimStore = Symbol('ExecutionClaimStore');
