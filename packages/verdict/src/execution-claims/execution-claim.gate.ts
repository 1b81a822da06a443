import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { ClaimResolvedOutOfBandError } from '../errors/claim-resolved-out-of-band.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import type { AtMostOncePolicy } from './at-most-once.js';
import type { ExecutionClaimOptions } from './execution-claim-options.interface.js';
import type { ExecutionClaimStore } from './execution-claim-store.interface.js';
import { ExecutionClaimStatus } from './execution-claim-status.js';

/**
 * `claim_` + 256 random bits, base64url: a claim id nobody can guess. The prefix names what it is in logs
 * and keeps the id from starting with `-`, which command lines would read as an option.
 */
export function newClaimId(): string {
  return `claim_${randomBytes(32).toString('base64url')}`;
}

/** What a claim is keyed on: the capability, the policy's name and its key over the proposal and its target. */
export function claimBindingFingerprint(
  capability: string,
  policy: AtMostOncePolicy,
  envelope: Envelope,
  target: unknown,
): string {
  return fingerprint({ capability, policy: policy.name, binding: policy.key(envelope, target) });
}

/** One claim as step 13 admits it: its policy's name and its binding fingerprint. */
export interface ClaimBinding {
  readonly policy: string;
  readonly bindingFingerprint: string;
}

/**
 * The binding of `policy`'s claim for this call. Its `key` is the application's code: a key that throws, or answers a
 * value that is not plain JSON (`NonCanonicalValueError`), throws here, so the pipeline calls this before any gate
 * spends anything.
 */
export function claimBindingOf(
  { definition, envelope, target }: Pick<GateRequest, 'definition' | 'envelope' | 'target'>,
  policy: AtMostOncePolicy,
): ClaimBinding {
  return {
    policy: policy.name,
    bindingFingerprint: claimBindingFingerprint(definition.name, policy, envelope, target),
  };
}

/** An admitted claim: its id and which attempt of it this run holds. */
export interface ClaimAttempt {
  readonly id: string;
  readonly attempt: number;
}

/**
 * Step 13, the last gate: admit the logical operation, or deny a duplicate at `execution_claim`.
 * Returns the claim and the attempt admitted.
 */
export async function admitExecutionClaim(
  store: ExecutionClaimStore,
  { policy, bindingFingerprint }: ClaimBinding,
  capability: string,
  now: Date,
  trail: EvidenceTrail,
): Promise<Decision | ClaimAttempt> {
  await trail.beforeMutation();
  const admission = await store.admit({
    capability,
    policy,
    bindingFingerprint,
    candidateId: newClaimId(),
    now,
  });
  trail.markMutated();
  const facts = { claimFingerprint: bindingFingerprint, claimAttempt: admission.attempt };
  if (!admission.admitted) {
    const denied = Decision.deny(
      Stage.ExecutionClaim,
      `duplicate operation: its execution claim is ${admission.status}`,
    );
    trail.record(denied, { ...facts, claimStatus: admission.status });
    return denied;
  }
  trail.record(Decision.permit(Stage.ExecutionClaim), { ...facts, claimStatus: ExecutionClaimStatus.Claimed });
  return { id: admission.claimId, attempt: admission.attempt };
}

/** Whether what an executor threw is its runtime pausing the run (`InvocationOptions.isPause`). */
export type PauseSignal = (error: unknown) => boolean;

/** Why Verdict released a claim whose executor paused the run (ADR 0177). */
const PAUSED_CLAIM_RELEASE_REASON =
  'the executor paused the run to ask a human: the call is admitted again when the run resumes';

/**
 * Step 15: finalize the claim after the executor. A throwing executor leaves the claim `indeterminate`
 * and its original error is rethrown; one that throws its runtime's pause (`isPause`: a sub-agent asks a human) has
 * not failed: the claim is released, so that the call run again on resume is admitted (attempt + 1), and the signal
 * is rethrown unchanged (ADR 0177). A claim resolved by an operator while the executor ran is
 * reported with the executor's output. The completion is sent together with the run's evidence recorded since
 * its first mutating gate (ADR 0111): one round trip of the call, not two; either may commit first, and
 * neither decides whether the operation can run again (its admitted claim does).
 */
export async function finalizeExecutionClaim<T>(
  store: ExecutionClaimStore,
  capability: string,
  { id: claimId, attempt }: ClaimAttempt,
  run: () => T | Promise<T>,
  clock: () => Date,
  trail: EvidenceTrail,
  isPause?: PauseSignal,
): Promise<T> {
  let output: T;
  try {
    output = await run();
  } catch (error) {
    const paused = isPauseOf(isPause, error);
    try {
      if (paused)
        await store.resolve({
          claimId,
          to: ExecutionClaimStatus.Released,
          by: 'verdict:pause',
          reason: PAUSED_CLAIM_RELEASE_REASON,
          force: true,
          now: clock(),
          expected: { status: ExecutionClaimStatus.Claimed, attempt },
        });
      else await store.markIndeterminate(claimId, clock(), attempt);
    } catch (storeError) {
      // The claim stays `claimed`, which still refuses duplicates; the executor's error is what the caller needs.
      new Logger('Verdict').error(
        paused
          ? `Could not release execution claim after its executor paused the run (${capability})`
          : `Could not mark execution claim indeterminate after its executor failed (${capability})`,
        storeError,
      );
    }
    throw error;
  }
  const written = trail.writeNow();
  let completed: boolean;
  try {
    completed = await store.complete(claimId, clock(), attempt);
  } finally {
    // Never rejects: the claim was admitted, so a write failure is reported as an event.
    await written;
  }
  if (!completed) throw new ClaimResolvedOutOfBandError(capability, claimId, output);
  return output;
}

/** Whether `isPause` recognises `error`; a recogniser that throws answers no: the claim is left `indeterminate`. */
export function isPauseOf(isPause: PauseSignal | undefined, error: unknown): boolean {
  if (isPause === undefined) return false;
  try {
    return isPause(error) === true;
  } catch {
    return false;
  }
}

/** The execution claims step 13 admitted for a run, `null` where none applies. */
export interface AdmittedClaims {
  /** The operation's claim (its id is the `executionIdentity`): the capability's `atMostOnce`, else a deferred run's item. */
  readonly claim: ClaimAttempt | null;
  /** A deferred run's review-item claim, when the capability's own `atMostOnce` claim is `claim`. */
  readonly itemClaim: ClaimAttempt | null;
}

/** Step 13's answer for a run that claims nothing. */
export const NO_CLAIMS: AdmittedClaims = Object.freeze({ claim: null, itemClaim: null });

/**
 * Step 10b, a deferred run's first durable gate (ADR 0191): admit its review item's claim (`item`: its job may be
 * delivered more than once, docs/review-lane.md) before any later gate spends anything, then run those gates
 * (`gates`, handed the admitted claim) within it. A duplicate delivery is so denied at `execution_claim`, never by
 * what this run spent (its rate-limit unit). When the later gates refuse or fail, nothing ran: the item's claim is
 * released, so that the worker settles the item `refused` (or the job's retry runs it); a duplicate delivery still
 * finds the claim of the run that holds it.
 */
export async function holdingItemClaim<T extends object>(
  { executionClaims }: Pick<ExecutionClaimOptions, 'executionClaims'>,
  { definition, clock, trail }: GateRequest,
  item: ClaimBinding,
  gates: (itemClaim: ClaimAttempt) => Promise<Decision | T>,
): Promise<Decision | T> {
  const store = executionClaims!;
  const itemClaim = await admitExecutionClaim(store, item, definition.name, clock(), trail);
  if (itemClaim instanceof Decision) return itemClaim;
  const release = (reason: string) =>
    store.resolve({
      claimId: itemClaim.id,
      to: ExecutionClaimStatus.Released,
      by: 'verdict:deferred',
      reason,
      force: true,
      now: clock(),
      expected: { status: ExecutionClaimStatus.Claimed, attempt: itemClaim.attempt },
    });
  let gated: Decision | T;
  try {
    gated = await gates(itemClaim);
  } catch (error) {
    // The claim stays `claimed` when it cannot be released: it still refuses duplicates; the fault is the answer.
    await release('a later gate failed before the executor: nothing ran').catch((storeError: unknown) =>
      new Logger('Verdict').error(
        `Could not release a review item's execution claim after a later gate failed (${definition.name})`,
        storeError,
      ),
    );
    throw error;
  }
  if (gated instanceof Decision) await release(`a later gate refused the run at ${gated.stage}: nothing ran`);
  return gated;
}

/**
 * Step 13 for one run, the last gate: the capability's `atMostOnce` claims the operation (`operation`, its binding
 * from {@link claimBindingOf}, computed before any gate spent anything). Answers the claims, or its refusal. A
 * deferred run holds its item's claim already (`itemClaim`, step 10b): without `atMostOnce` that is the operation's.
 */
export async function admitExecutionClaims(
  { executionClaims }: Pick<ExecutionClaimOptions, 'executionClaims'>,
  { definition, clock, trail }: GateRequest,
  itemClaim: ClaimAttempt | null,
  operation: ClaimBinding | null,
): Promise<Decision | AdmittedClaims> {
  if (operation === null) return { claim: itemClaim, itemClaim: null };
  const claimed = await admitExecutionClaim(executionClaims!, operation, definition.name, clock(), trail);
  return claimed instanceof Decision ? claimed : { claim: claimed, itemClaim };
}
