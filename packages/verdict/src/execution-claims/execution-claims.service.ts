import { Inject, Injectable } from '@nestjs/common';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { decisionRecord } from '../evidence/decision-record.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { EXECUTION_CLAIM_OPTIONS, type ExecutionClaimOptions } from './execution-claim-options.interface.js';
import type { ClaimResolution, ExecutionClaimStore } from './execution-claim-store.interface.js';
import type { ExecutionClaim } from './execution-claim.js';
import { ExecutionClaimStatus } from './execution-claim-status.js';
import { resolvableFrom } from './claim-resolution-rules.js';
import { evidenceId } from '../evidence/evidence-id.js';
import { MAX_ATTRIBUTION_LENGTH, attributionRule, isAttribution } from '../shared/is-attribution.js';
import { isStorableText } from '../shared/storable-text.js';

/** The longest `by` or operator identity a claim row holds (`varchar(255)` on every engine, as every attribution). */
export const OPERATOR_FIELD_MAX_LENGTH = MAX_ATTRIBUTION_LENGTH;

/**
 * `value` as an operator attribution (`by`, or who ran the resolution): a string that is not blank and
 * at most {@link OPERATOR_FIELD_MAX_LENGTH} characters, without U+0000 or a lone surrogate (`isAttribution`, the rule
 * of approver and reviewer ids too), else a {@link VerdictConfigurationError} — on
 * every engine alike, before anything is written (a longer value would fail only on PostgreSQL and
 * MariaDB, a blank one would attribute the resolution to nobody).
 *
 * @example
 * checkedOperatorField('operator identity', await operatorIdentity()); // 'sso:8812'
 */
export function checkedOperatorField(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new VerdictConfigurationError(
      `Resolving a claim needs a non-blank ${name} (got ${typeof value === 'string' ? 'a blank string' : String(value)}).`,
    );
  }
  if (!isAttribution(value)) {
    throw new VerdictConfigurationError(`The ${name} of a claim resolution is a string ${attributionRule(value)}.`);
  }
  return value;
}

/** How an operator resolves a claim: the effect happened (`completed`), or it did not and may be retried once (`retryable`). */
export type ClaimResolutionChoice = 'completed' | 'retryable';

/**
 * Operator reconciliation of execution claims (docs/execution-claims-and-rate-limits.md), for the CLI and for admin screens.
 * Every resolution is recorded as evidence (`tool_kind: operator`). There is no pruning: claim rows
 * are the at-most-once guarantee.
 */
@Injectable()
export class ExecutionClaimsService {
  constructor(
    @Inject(EXECUTION_CLAIM_OPTIONS) private readonly options: ExecutionClaimOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
  ) {}

  /** Claims still `claimed` or `indeterminate`, oldest first. */
  unresolved(): Promise<ExecutionClaim[]> {
    return this.store().unresolved();
  }

  /**
   * Resolves an unresolved claim. `by` is an opaque operator id (`operator:7`), never PII; `reason` says
   * what the investigation found. A still-`claimed` claim needs `force`: its executor may be running.
   * `operatorIdentity` is who actually runs the resolution, from a source the operator does not type (the
   * CLI's operator-identity hook, an admin screen's authenticated user); it is stored next to `by` and
   * named in the evidence. Default: none (`null`). Both `by` and `operatorIdentity` (when given) must be
   * non-blank strings of at most 255 characters ({@link checkedOperatorField}); the evidence names each
   * as a JSON string (`operator "operator:7" (run by "sso:8812")`), so neither can pose as the other.
   * `claimId` must be a non-blank string and `force` (when given) a boolean: anything else (`null`, the
   * string `'false'` of a form field) is a {@link VerdictConfigurationError}, and nothing is resolved.
   *
   * @example
   * await claims.resolve(claimId, 'retryable', 'operator:7', 'the PSP never received the refund', false, 'sso:8812');
   */
  async resolve(
    claimId: string,
    choice: ClaimResolutionChoice,
    by: string,
    reason: string,
    force = false,
    operatorIdentity?: string,
  ): Promise<ClaimResolution> {
    // An admin screen may pass form fields: no id is never "every claim", and `'false'` is not a boolean.
    if (typeof claimId !== 'string' || claimId.trim() === '')
      throw new VerdictConfigurationError(
        `Resolving a claim needs a claim id (a non-blank string), not ${describeInput(claimId)}.`,
      );
    if (typeof force !== 'boolean')
      throw new VerdictConfigurationError(`Resolving a claim needs force as a boolean, not ${describeInput(force)}.`);
    if (typeof by !== 'string' || by.trim() === '' || typeof reason !== 'string' || reason.trim() === '') {
      throw new VerdictConfigurationError('Resolving a claim needs --by (an opaque operator id) and --reason.');
    }
    checkedOperatorField('--by', by);
    if (operatorIdentity !== undefined) checkedOperatorField('operator identity', operatorIdentity);
    // Kept on the claim as written (`resolution_reason`): text every engine stores, checked before anything is read.
    if (!isStorableText(reason))
      throw new VerdictConfigurationError(
        'The --reason of a claim resolution is a string without U+0000 or a lone surrogate.',
      );
    // An admin screen may pass any string: only the two choices resolve, and a typo never re-opens the operation.
    const to =
      choice === 'completed'
        ? ExecutionClaimStatus.Completed
        : choice === 'retryable'
          ? ExecutionClaimStatus.Released
          : undefined;
    if (to === undefined)
      throw new VerdictConfigurationError(
        `Resolving a claim needs a choice of completed or retryable, not ${JSON.stringify(String(choice))}.`,
      );
    const now = (this.options.clock ?? (() => new Date()))();
    // JSON strings: a --by that reads "operator:7 (run by sso:ceo)" stays one quoted value.
    const operator = `operator ${JSON.stringify(by)}${operatorIdentity === undefined ? '' : ` (run by ${JSON.stringify(operatorIdentity)})`}`;
    // The evidence first: a resolution that cannot be recorded does not happen.
    // An id holding U+0000 or a lone surrogate names no claim on any store (PostgreSQL would fail its lookup).
    const expected = isStorableText(claimId) ? await this.store().find(claimId) : null;
    // Refused as the claim stands: nothing is resolved, so nothing is recorded.
    if (expected === null) return { outcome: 'not_found' };
    if (expected.status === ExecutionClaimStatus.Claimed && !force)
      return { outcome: 'force_required', claim: expected };
    if (!resolvableFrom(force).includes(expected.status)) return { outcome: 'invalid_state', claim: expected };
    await this.record({ ...expected, status: to }, resolutionDecision(operator, expected.status, to, reason), now);
    let resolution: ClaimResolution;
    try {
      resolution = await this.store().resolve({
        claimId,
        to,
        by,
        operatorIdentity: operatorIdentity ?? null,
        reason,
        force,
        now,
        // Only the claim as it was read and recorded: one released and admitted again since runs a new executor.
        expected: { status: expected.status, attempt: expected.attempt },
      });
    } catch (error) {
      // The store failed after the record: say it may not have applied, then report the fault as it is.
      await this.record(expected, notApplied(operator, expected.status, 'unknown: the store failed'), now).catch(
        () => undefined,
      );
      throw error;
    }
    // The claim moved between the read and the update (its executor finished, another operator resolved it):
    // what happened instead is recorded too.
    if (resolution.outcome === 'resolved') {
      if (resolution.from !== expected.status || resolution.claim.attempt !== expected.attempt)
        await this.record(resolution.claim, resolutionDecision(operator, resolution.from, to, reason), now);
    } else {
      const found = resolution.outcome === 'not_found' ? 'gone' : resolution.claim.status;
      await this.record(
        resolution.outcome === 'not_found' ? expected : resolution.claim,
        notApplied(operator, expected.status, found),
        now,
      );
    }
    return resolution;
  }

  /** One operator record about `claim` (as it is, or will be once resolved): its binding as a fingerprint, its status and attempt; never its id. */
  private async record(claim: ExecutionClaim, decision: Decision, now: Date): Promise<void> {
    await this.evidence.recordDecision(
      decisionRecord(
        {
          id: evidenceId(),
          correlationId: evidenceId(),
          sequence: 0,
          capability: claim.capability,
          toolKind: ToolKind.Operator,
          stage: decision.stage,
          disposition: decision.disposition,
          reason: decision.reason,
          recordedAt: now,
        },
        { claimFingerprint: claim.bindingFingerprint, claimStatus: claim.status, claimAttempt: claim.attempt },
      ),
    );
  }

  /** Deletes rate-limit windows that have ended; returns how many. */
  pruneRateLimits(): Promise<number> {
    const store = this.options.rateLimits;
    if (store === undefined)
      throw new VerdictConfigurationError(
        'No rate-limit store is configured: pass `rateLimits` to VerdictModule.forRoot.',
      );
    return store.prune((this.options.clock ?? (() => new Date()))());
  }

  private store(): ExecutionClaimStore {
    const store = this.options.executionClaims;
    if (store === undefined)
      throw new VerdictConfigurationError(
        'No execution-claim store is configured: pass `executionClaims` to VerdictModule.forRoot.',
      );
    return store;
  }
}

/** An untyped input as an error message names it: a string quoted, anything else as its type or value. */
function describeInput(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : typeof value;
}

/** An operator's resolution as a decision: released, the operation may be admitted once more; completed, it never will be. */
function resolutionDecision(
  operator: string,
  from: ExecutionClaimStatus,
  to: ExecutionClaimStatus,
  reason: string,
): Decision {
  return to === ExecutionClaimStatus.Released
    ? Decision.permit(Stage.ExecutionClaim, `${operator} resolved ${from} as retryable: ${reason}`)
    : Decision.deny(Stage.ExecutionClaim, `${operator} resolved ${from} as completed: ${reason}`);
}

/** A resolution that did not apply, the claim being `found` instead. */
function notApplied(operator: string, from: ExecutionClaimStatus, found: string): Decision {
  return Decision.deny(
    Stage.ExecutionClaim,
    `${operator}'s resolution of ${from} did not apply: the claim is ${found}`,
  );
}
