import { refusedResolution, resolvable, resolvedClaim } from './claim-resolution-rules.js';
import type {
  ClaimAdmission,
  ClaimRequest,
  ClaimResolution,
  ClaimResolutionRequest,
  ExecutionClaimStore,
} from './execution-claim-store.interface.js';
import type { ExecutionClaim } from './execution-claim.js';
import { ExecutionClaimStatus } from './execution-claim-status.js';

/**
 * Claims in process memory: for tests and single-process development. It guarantees nothing across
 * processes or restarts; use `TypeOrmExecutionClaimStore` for that.
 */
export class InMemoryExecutionClaimStore implements ExecutionClaimStore {
  private readonly byId = new Map<string, ExecutionClaim>();
  private readonly byBinding = new Map<string, string>();

  async admit({ capability, policy, bindingFingerprint, candidateId, now }: ClaimRequest): Promise<ClaimAdmission> {
    const existingId = this.byBinding.get(bindingFingerprint);
    const existing = existingId === undefined ? undefined : this.byId.get(existingId)!;
    if (existing === undefined) {
      this.save({
        id: candidateId,
        capability,
        policy,
        bindingFingerprint,
        status: ExecutionClaimStatus.Claimed,
        attempt: 1,
        claimedAt: now,
        updatedAt: now,
        resolvedBy: null,
        operatorIdentity: null,
        resolutionReason: null,
        resolvedAt: null,
      });
      return { admitted: true, claimId: candidateId, attempt: 1 };
    }
    if (existing.status !== ExecutionClaimStatus.Released)
      return { admitted: false, claimId: existing.id, status: existing.status, attempt: existing.attempt };
    const attempt = existing.attempt + 1;
    this.save({ ...existing, status: ExecutionClaimStatus.Claimed, attempt, claimedAt: now, updatedAt: now });
    return { admitted: true, claimId: existing.id, attempt };
  }

  async complete(claimId: string, now: Date, attempt?: number): Promise<boolean> {
    return this.finish(claimId, ExecutionClaimStatus.Completed, now, attempt);
  }

  async markIndeterminate(claimId: string, now: Date, attempt?: number): Promise<boolean> {
    return this.finish(claimId, ExecutionClaimStatus.Indeterminate, now, attempt);
  }

  async resolve(request: ClaimResolutionRequest): Promise<ClaimResolution> {
    const claim = this.byId.get(request.claimId) ?? null;
    if (claim === null || !resolvable(claim, request)) return refusedResolution(claim, request);
    const resolved = resolvedClaim(claim, request);
    this.save(resolved);
    return { outcome: 'resolved', claim: resolved, from: claim.status };
  }

  async unresolved(): Promise<ExecutionClaim[]> {
    const open: ExecutionClaimStatus[] = [ExecutionClaimStatus.Claimed, ExecutionClaimStatus.Indeterminate];
    return [...this.byId.values()]
      .filter((claim) => open.includes(claim.status))
      .sort((a, b) => a.claimedAt.getTime() - b.claimedAt.getTime());
  }

  async find(claimId: string): Promise<ExecutionClaim | null> {
    return this.byId.get(claimId) ?? null;
  }

  private finish(claimId: string, status: ExecutionClaimStatus, now: Date, attempt?: number): boolean {
    const claim = this.byId.get(claimId);
    if (claim?.status !== ExecutionClaimStatus.Claimed) return false;
    if (attempt !== undefined && claim.attempt !== attempt) return false;
    this.save({ ...claim, status, updatedAt: now });
    return true;
  }

  private save(claim: ExecutionClaim): void {
    this.byId.set(claim.id, Object.freeze(claim));
    this.byBinding.set(claim.bindingFingerprint, claim.id);
  }
}
