import type { GateRequest } from '../capabilities/gate-request.js';
import type { AuthorizedAction } from '../vocabulary/authorized-action.js';
import type { ExecutionClaimOptions } from './execution-claim-options.interface.js';
import {
  type AdmittedClaims,
  type ClaimAttempt,
  type PauseSignal,
  finalizeExecutionClaim,
} from './execution-claim.gate.js';

/** Runs one executor call as step 14 needs it (within the call's spend-budget reservation, if any). */
export type ExecutorCall = <T>(execute: () => T | Promise<T>) => T | Promise<T>;

/**
 * Steps 14 and 15 of a bound tool: hand the capability's executor the `AuthorizedAction` — the execution target, the
 * validated arguments, the context, and as its execution identity the operation's claim id (else the envelope id)
 * — through `call`, within the run's claims; what `isPause` recognises as the runtime pausing releases them.
 */
export function executeAuthorized(
  options: Pick<ExecutionClaimOptions, 'executionClaims'>,
  request: GateRequest,
  claims: AdmittedClaims,
  call: ExecutorCall,
  isPause?: PauseSignal,
): unknown {
  const { definition, envelope, target } = request;
  const action: AuthorizedAction = {
    capability: definition.name,
    target,
    arguments: envelope.arguments,
    context: envelope.context,
    executionIdentity: claims.claim?.id ?? envelope.id,
  };
  return executeWithinClaims(options, request, claims, () => call(() => definition.executor!(action)), isPause);
}

/**
 * Steps 14 and 15: run the executor (or a guarded tool's own handler) within the run's claims, each finalized
 * `completed`, or `indeterminate` when it throws (the original error is rethrown), or `released` when what it threw
 * is the runtime pausing (`isPause`, ADR 0177); a deferred run's item claim wraps the operation's. Without a claim it
 * runs directly, awaited by the caller alone (ADR 0075).
 */
export function executeWithinClaims<T>(
  { executionClaims }: Pick<ExecutionClaimOptions, 'executionClaims'>,
  { definition, clock, trail }: Pick<GateRequest, 'definition' | 'clock' | 'trail'>,
  { claim, itemClaim }: AdmittedClaims,
  execute: () => T | Promise<T>,
  isPause?: PauseSignal,
): T | Promise<T> {
  if (claim === null && itemClaim === null) return execute();
  const finalized = (admitted: ClaimAttempt, run: () => T | Promise<T>) =>
    finalizeExecutionClaim(executionClaims!, definition.name, admitted, run, clock, trail, isPause);
  const once = claim === null ? execute : () => finalized(claim, execute);
  return itemClaim === null ? once() : finalized(itemClaim, once);
}
