import { randomBytes } from 'node:crypto';
import type { GateRequest } from '../capabilities/gate-request.js';
import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { Stage } from '../decisions/stage.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { storableDescription } from '../evidence/storable-reason.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { type ApprovalChallenge, challengeOf } from './approval-challenge.js';
import { ApprovalPhase } from './approval-phase.js';
import type { ApprovalOptions } from './approval-options.interface.js';
import type { ReceiptCheck, ReceiptKey } from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { receiptPrincipal } from './receipt-principal.js';
import { ReceiptStatus } from './receipt-status.js';
import { subjectFacts } from './subject-facts.js';
import {
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  DEFAULT_MAX_PENDING_RECEIPTS,
  type ConfirmationPolicy,
} from './requires-confirmation.js';

/** `rcpt_` + 256 random bits, base64url. */
export function newReceiptId(): string {
  return `rcpt_${randomBytes(32).toString('base64url')}`;
}

/** The outcome of validating confirmation: proceed with the receipt's key, or stop with a decision. */
export type ConfirmationOutcome =
  | { readonly proceed: true; readonly key: ReceiptKey }
  | {
      readonly proceed: false;
      readonly decision: Decision;
      readonly challenge?: ApprovalChallenge;
      /** The challenge's receipt is pending: an approver is asked (an approved one only awaits its explicit resume). */
      readonly asksApprover?: boolean;
    };

/** How a validation may act: `execute` issues a pending receipt when none fits; `evaluate` changes nothing. */
export interface ConfirmationAsk {
  /** The resuming agent (or caller) explicitly approved this tool-call id. */
  readonly explicitApproval: boolean;
  readonly issueReceipts: boolean;
  /** What the approver is shown of the proposal's provenance, stored with a receipt issued now. */
  readonly provenance: ApproverProvenance | null;
  /** The approval batch a receipt issued now joins, with the proposal's validated arguments (ADR 0102). */
  readonly approvalBatch?: string;
  /**
   * The actor's principal fingerprints under every actor key the application's confirmations use (`askerFingerprints`),
   * asked only when a receipt is issued, before the run's evidence is written for it: its pending cap of the tool call
   * counts them all (ADR 0184). Unset: only this capability's.
   */
  readonly askerFingerprints?: () => readonly string[];
}

/**
 * Steps 5 and 10: validate, without consuming, that a human approved this exact proposal (`requiresConfirmation`)
 * against the request's target (the proposal target at 5, the execution target at 10), asked by this actor in this tenant
 * and conversation. When no receipt fits the binding — none yet, or the arguments, the bound state or
 * who asks changed since approval — a pending receipt is issued and the answer is
 * `require_confirmation`, unless the pending-receipt caps refuse one: then `throttle`, nothing issued. The run's
 * evidence so far is written before the receipt is issued: a write failure stops the run with
 * `EvidenceWriteFailedError` and issues nothing. Before that, the policy's `subject` facts must be a plain JSON
 * object (`NonCanonicalValueError` naming the path, `$.subject.placed`, otherwise: nothing written or issued), and
 * the asker's fingerprints are asked (`askerFingerprints`: what a confirming key throws propagates as a fault before
 * mutation, nothing issued).
 */
export async function validateConfirmation(
  { approvals }: Pick<ApprovalOptions, 'approvals'>,
  { definition, envelope, target, clock, trail }: GateRequest,
  ask: ConfirmationAsk,
  phase: ApprovalPhase,
): Promise<ConfirmationOutcome> {
  const now = clock();
  const store = approvals!;
  const { explicitApproval } = ask;
  const policy: ConfirmationPolicy = definition.requiresConfirmation!;
  const stop = async (
    decision: Decision,
    facts: { outcome: string; receipt?: ApprovalReceipt | null },
    challenge?: ApprovalChallenge,
  ): Promise<ConfirmationOutcome> => {
    trail.record(decision, {
      approvalPhase: phase,
      approvalOutcome: facts.outcome,
      receiptFingerprint: facts.receipt ? fingerprintString(facts.receipt.id) : null,
    });
    return { proceed: false, decision, challenge, asksApprover: facts.receipt?.status === ReceiptStatus.Pending };
  };
  if (envelope.toolCallId === null)
    return stop(Decision.deny(Stage.Approval, 'confirmation needs the tool-call id of the proposal'), {
      outcome: 'not_found',
    });
  const binding = policy.bind(envelope, target);
  // Who asks is bound whatever `bind` returns: another actor, tenant or conversation never matches.
  const principal = receiptPrincipal(envelope.context, policy.actorKey, definition.name);
  const key: ReceiptKey = {
    toolCallId: envelope.toolCallId,
    capability: definition.name,
    bindingFingerprint: fingerprint({
      capability: definition.name,
      execution_target_policy: definition.executionTarget.name,
      arguments: envelope.arguments,
      binding,
      principal: principal.fingerprint,
      conversation: principal.conversation,
    }),
    principalFingerprint: principal.fingerprint,
    conversationFingerprint: principal.conversationFingerprint,
  };
  const check = await store.validate(key, now);
  // A receipt for this tool call whose binding differs: what was approved is not what is proposed now.
  const changed = check.outcome === 'mismatch' ? SecuritySignal.ApprovalArgumentsChanged : undefined;
  const pendingAnswer = (receipt: ApprovalReceipt) =>
    stop(
      Decision.of(Disposition.RequireConfirmation, Stage.Approval, policy.reason, changed),
      { outcome: check.outcome, receipt },
      challengeOf(receipt),
    );
  switch (check.outcome) {
    case 'approved':
      if (!explicitApproval) {
        return stop(
          Decision.of(
            Disposition.RequireConfirmation,
            Stage.Approval,
            'approved receipt, but this invocation carries no explicit approval of its tool call',
          ),
          check,
          challengeOf(check.receipt!),
        );
      }
      trail.record(Decision.permit(Stage.Approval), {
        approvalPhase: phase,
        approvalOutcome: check.outcome,
        receiptFingerprint: fingerprintString(check.receipt!.id),
      });
      return { proceed: true, key };
    case 'not_found':
    case 'mismatch': {
      if (!ask.issueReceipts)
        return stop(Decision.of(Disposition.RequireConfirmation, Stage.Approval, policy.reason, changed), check);
      const ttl = policy.ttlSeconds ?? DEFAULT_CONFIRMATION_TTL_SECONDS;
      // Checked before anything is written: facts that are not plain JSON would be kept as they are in memory and
      // as JSON text elsewhere, so an approver's CASL rule on them would decide apart by store (ADR 0201).
      const subject = subjectFacts(policy.subject?.(envelope, target), ['subject']);
      // Asked before anything is written too: what a confirming capability's key throws fails the proposal as a
      // fault before mutation does, never after the run's evidence was written for a receipt (ADR 0208).
      const askerFingerprints = ask.askerFingerprints?.();
      // A pending receipt is a write an approver acts on: the run's evidence so far is written first (a failure
      // stops it here, nothing issued), as parking for review does.
      await trail.beforeMutation();
      const receipt = await store.issue({
        ...key,
        candidateId: newReceiptId(),
        reason: policy.reason,
        // What the model wrote can reach it: stored alike on every engine, U+0000 and over-long text included.
        description: storableDescription(policy.describe?.(envelope, target)),
        subject,
        provenance: ask.provenance,
        // Only a store that keeps batches (inBatch and decideBatch, as ApprovalBatchService needs) gets one and the
        // arguments: elsewhere the receipt is asked on its own, and keeps no arguments.
        batch:
          ask.approvalBatch === undefined || store.decideBatch === undefined || store.inBatch === undefined
            ? undefined
            : { id: ask.approvalBatch, arguments: envelope.arguments as JsonValue },
        expiresAt: new Date(now.getTime() + ttl * 1000),
        now,
        limits: {
          principalFingerprint: principal.fingerprint,
          conversationFingerprint: principal.conversationFingerprint,
          maxPending: policy.maxPending ?? DEFAULT_MAX_PENDING_RECEIPTS,
          ...(askerFingerprints === undefined ? {} : { askerFingerprints }),
        },
      });
      // Over a pending cap nothing was issued: the run has still mutated nothing.
      if (receipt === null) {
        return stop(
          Decision.of(
            Disposition.Throttle,
            Stage.Approval,
            'pending approval limit: this actor already awaits approval of this tool call in this conversation, or of maxPending proposals of this capability',
            // Arguments changed under a receipt still pending: the likeliest moment for tampering is signalled too.
            changed,
          ),
          {
            outcome: 'pending_limit',
          },
        );
      }
      trail.markMutated();
      return pendingAnswer(receipt);
    }
    case 'invalid_state':
      if (check.receipt!.status === ReceiptStatus.Pending) return pendingAnswer(check.receipt!);
      return stop(
        Decision.deny(
          Stage.Approval,
          check.receipt!.status === ReceiptStatus.Superseded
            ? 'the approver edited this proposal: its original arguments never run'
            : 'the approver rejected this proposal',
        ),
        check,
      );
    case 'expired':
      if (isReplay(check)) return stop(replay(), check);
      return stop(Decision.deny(Stage.Approval, 'the approval expired before execution'), check);
    case 'consumed':
      return stop(replay(), check);
  }
}

/**
 * Whether `check` found the approval consumed already: answered `consumed`, or `expired` for a consumed receipt past
 * its expiry (stores answer expiry first). Either way a replay, as before its expiry and once pruned to its tombstone.
 */
function isReplay(check: ReceiptCheck): boolean {
  return (
    check.outcome === 'consumed' || (check.outcome === 'expired' && check.receipt?.status === ReceiptStatus.Consumed)
  );
}

/** A consumed approval presented again. */
function replay(): Decision {
  return Decision.deny(
    Stage.Approval,
    'replay: this approval was already consumed',
    SecuritySignal.ApprovalReplayDetected,
  );
}

/** Step 12: atomically consume the receipt steps 5 and 10 validated. Of racing callers exactly one proceeds. */
export async function consumeConfirmation(
  { approvals }: Pick<ApprovalOptions, 'approvals'>,
  key: ReceiptKey,
  { clock, trail }: Pick<GateRequest, 'clock' | 'trail'>,
): Promise<Decision> {
  const now = clock();
  await trail.beforeMutation();
  const check = await approvals!.consume(key, now);
  trail.markMutated();
  const decision =
    check.outcome === 'approved'
      ? Decision.permit(Stage.Approval)
      : Decision.deny(
          Stage.Approval,
          `the approval could not be consumed: ${check.outcome}`,
          // Lost the race to consume it: another call already spent this approval.
          isReplay(check) ? SecuritySignal.ApprovalReplayDetected : undefined,
        );
  trail.record(decision, {
    approvalPhase: ApprovalPhase.Consumption,
    approvalOutcome: check.outcome === 'approved' ? 'consumed' : check.outcome,
    receiptFingerprint: check.receipt ? fingerprintString(check.receipt.id) : null,
  });
  return decision;
}
