import type { ClaimResolution, ClaimResolutionRequest } from './execution-claim-store.interface.js';
import type { ExecutionClaim } from './execution-claim.js';
import { ExecutionClaimStatus } from './execution-claim-status.js';

/** The states an operator may resolve from, given `force`. Shared by every adapter. */
export function resolvableFrom(force: boolean): readonly ExecutionClaimStatus[] {
  return force
    ? [ExecutionClaimStatus.Claimed, ExecutionClaimStatus.Indeterminate]
    : [ExecutionClaimStatus.Indeterminate];
}

/** Whether `request` may resolve `claim` as it stands: a resolvable status and, when given, the expected status and attempt. */
export function resolvable(claim: ExecutionClaim, request: ClaimResolutionRequest): boolean {
  if (!resolvableFrom(request.force).includes(claim.status)) return false;
  const { expected } = request;
  return expected === undefined || (expected.status === claim.status && expected.attempt === claim.attempt);
}

/** Why a resolution of `claim` was refused (for adapters whose conditional update matched nothing). */
export function refusedResolution(claim: ExecutionClaim | null, request: ClaimResolutionRequest): ClaimResolution {
  if (claim === null) return { outcome: 'not_found' };
  if (claim.status === ExecutionClaimStatus.Claimed && !request.force) return { outcome: 'force_required', claim };
  return { outcome: 'invalid_state', claim };
}

/** The claim as an operator's resolution leaves it. */
export function resolvedClaim(claim: ExecutionClaim, request: ClaimResolutionRequest): ExecutionClaim {
  return Object.freeze({
    ...claim,
    status: request.to,
    updatedAt: request.now,
    resolvedBy: request.by,
    operatorIdentity: request.operatorIdentity ?? null,
    resolutionReason: request.reason,
    resolvedAt: request.now,
  });
}
