import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { validateArguments } from '../capabilities/argument-validator.js';
import { type ActionContext, isActionContext } from '../context/action-context.js';
import { tenantFingerprintOf } from '../context/actor-key.js';
import { containedActorFingerprint } from '../containment/contained-actor.js';
import { type DeciderRefusal, deciderRefusal } from '../containment/decider-refusal.js';
import { DecisionContainment, type HumanDecision } from '../containment/decision-containment.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { decisionTrail } from '../evidence/decision-trail.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { ProvenanceContents } from '../provenance/provenance-contents.js';
import type { Approver } from './approval-endpoint-hooks.interface.js';
import {
  type ApprovalBatch,
  type ApprovalBatchItemDecision,
  type ApprovalBatchOutcome,
  type ApprovalBatchRead,
  type DecidedBatchItem,
} from './approval-batch.js';
import { ApprovalBatchDecisionError } from './approval-batch-decision.error.js';
import { APPROVAL_OPTIONS, type ApprovalOptions } from './approval-options.interface.js';
import { ApprovalPhase } from './approval-phase.js';
import type { ApprovalReceiptStore } from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { approvalSubject } from './approval-subject.js';
import { MAX_APPROVER_ID_LENGTH, isApproverId } from './approver-id.js';
import { isStorableText } from '../shared/storable-text.js';
import { askedBy, checkRequester } from './receipt-requester.js';
import { isExpired } from './receipt-rules.js';
import { ReceiptStatus } from './receipt-status.js';

/** An item's decision with the receipt it decides. */
interface Decided {
  readonly receipt: ApprovalReceipt;
  readonly decision: ApprovalBatchItemDecision;
}

/**
 * Batch approvals (docs/approvals.md "Batch approvals", ADR 0102): the receipts one model turn asked for are read
 * and decided together, each item approved, rejected or edited. The approver is checked as for one receipt: the
 * batch must be the requester's (actor, tenant and conversation) and the approver of the requester's tenant, with
 * CASL `approve` on every item's `'Approval'` subject and no kill switch engaged for them; an approval is refused
 * while a switch holds the capability or the requester. A submission decides every pending item at once on the
 * receipt store, or nothing.
 *
 * @example
 * const batch = await batches.read(batchId, approver, requester);
 * const outcome = await batches.decide(batchId, [{ toolCallId: 'call_1', decision: 'approve' }, { toolCallId: 'call_2', decision: 'edit', arguments: { id: 3 } }], approver, requester);
 */
@Injectable()
export class ApprovalBatchService {
  constructor(
    @Inject(APPROVAL_OPTIONS) private readonly options: ApprovalOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    private readonly contents: ProvenanceContents,
    private readonly containment: DecisionContainment,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /**
   * The pending items of the batch that `requester` asked for, for the application (an interrupt, a notification):
   * trusted data and the proposal's arguments, no receipt id, no approver check. `null` when none is pending.
   * @throws VerdictConfigurationError without a non-blank batch id, before the store is read.
   */
  async pending(batchId: string, requester: ActionContext): Promise<ApprovalBatch | null> {
    checkedBatchId('pending', batchId);
    const pending = (await this.requesters(batchId, requester)).filter((r) => this.isPending(r));
    return pending.length === 0 ? null : batchOf(batchId, pending);
  }

  /**
   * Whether some receipt of the batch that `requester` asked for was decided (approved, rejected, superseded or consumed).
   * @throws VerdictConfigurationError without a non-blank batch id, before the store is read.
   */
  async isDecided(batchId: string, requester: ActionContext): Promise<boolean> {
    checkedBatchId('isDecided', batchId);
    return (await this.requesters(batchId, requester)).some((r) => r.status !== ReceiptStatus.Pending);
  }

  /**
   * The batch for an approver who may decide it: its pending items; `not_found` when `requester` has no pending
   * item in it or the approver is of another tenant, `forbidden` / `contained` as {@link decide} refuses.
   *
   * @param requester The action context the calls were proposed in (what `@ApprovalEndpoint()`'s `requester` hook builds).
   */
  async read(batchId: string, approver: Approver, requester: ActionContext): Promise<ApprovalBatchRead> {
    checkedCall('read', batchId, approver, requester);
    const pending = (await this.requesters(batchId, requester)).filter((r) => this.isPending(r));
    if (pending.length === 0 || approver.context.tenant !== requester.tenant)
      return { allowed: false, outcome: 'not_found' };
    const refusal = await this.approverRefusal(approver, pending);
    if (refusal !== null) return { allowed: false, outcome: refusal };
    return { allowed: true, ...batchOf(batchId, pending) };
  }

  /**
   * Decides every pending item of the batch at once: `approve` (the call runs when its run resumes), `reject` (it
   * never runs), `edit` (it never runs as proposed: the receipt is closed as `superseded` (ADR 0124), and the answer hands back the
   * edited arguments to propose again — the whole pipeline, and a receipt of their own if they need one; an edit
   * approves nothing). Recorded per item (`tool_kind: approver`, `approval_outcome` approved / rejected /
   * superseded) before the store changes. A batch with a tool call asked again (its earlier receipt decided on its
   * own, then the call proposed again into the batch) is `invalid_state`: decisions name tool calls, and an approver
   * who read it before was shown other arguments (ADR 0168). An approver without CASL `approve` on every item is
   * answered `forbidden` before the decisions are looked at.
   *
   * @throws ApprovalBatchDecisionError when `decisions` do not name each pending item exactly once with approve,
   * reject or edit, carry arguments on anything but an edit, or an edit's arguments fail the capability's schema:
   * nothing is recorded or changed.
   * @throws VerdictConfigurationError without a batch id, an approver with an id (of at most 255 characters: the
   * receipts' column) and an action context, or a requester: nothing is recorded or changed.
   */
  async decide(
    batchId: string,
    decisions: readonly ApprovalBatchItemDecision[],
    approver: Approver,
    requester: ActionContext,
  ): Promise<ApprovalBatchOutcome> {
    checkedCall('decide', batchId, approver, requester);
    const store = this.store();
    const now = this.now();
    const ofRequester = await this.requesters(batchId, requester);
    if (ofRequester.length === 0 || approver.context.tenant !== requester.tenant) return { outcome: 'not_found' };
    const pending = ofRequester.filter((r) => r.status === ReceiptStatus.Pending);
    if (pending.length === 0) return { outcome: 'invalid_state' };
    if (pending.some((r) => isExpired(r, now))) return { outcome: 'expired' };
    // A tool call asked again in the batch (its earlier receipt decided on its own) is not what an approver who read
    // the batch before was shown: decisions name tool calls, so they could approve arguments never shown (ADR 0168).
    if (pending.some((r) => isAskedAgain(r, ofRequester))) return { outcome: 'invalid_state' };
    // Before the decisions are matched: an approver who may not approve learns nothing of the batch's items from them.
    // A contained approver is refused by the kill-switch check below, which records and reports the refusal
    // (stage containment, approvalOutcome contained, CapabilityDenied) as for one receipt.
    if ((await this.approverRefusal(approver, pending)) === 'forbidden') return { outcome: 'forbidden' };
    const decided = await this.matched(pending, decisions);
    const trails = decided.map(({ receipt }) => this.trailOf(receipt));
    for (const [index, item] of decided.entries()) {
      const contained = await this.containment.check(this.humanDecision(item, approver, requester));
      if (contained === null) continue;
      await trails[index].record(contained, { approvalOutcome: 'contained' });
      await trails[index].close();
      this.containment.report(
        this.humanDecision(item, approver, requester),
        contained,
        trails[index].correlationId,
        now,
      );
      return { outcome: 'contained' };
    }
    // Evidence before the transition: a batch nobody could record is not decided.
    for (const [index, { decision }] of decided.entries()) {
      const verb = decision.decision;
      await trails[index].record(Decision.permit(Stage.Approval, `${verb} by ${approver.id}: approver authorized`), {
        approvalOutcome: 'authorized',
      });
      await trails[index].beforeMutation();
    }
    const transition = await store.decideBatch!({
      batchId,
      items: decided.map(({ receipt, decision }) => ({
        receiptId: receipt.id,
        toolCallId: receipt.toolCallId,
        verdict: ({ approve: 'approve', reject: 'reject', edit: 'supersede' } as const)[decision.decision],
      })),
      by: approver.id,
      now,
    });
    trails.forEach((trail) => trail.markMutated());
    for (const [index, { decision }] of decided.entries()) {
      const recorded =
        transition.outcome !== 'decided'
          ? Decision.deny(Stage.Approval, `batch ${decision.decision} by ${approver.id} refused: ${transition.outcome}`)
          : decision.decision === 'approve'
            ? Decision.permit(Stage.Approval, `approved by ${approver.id} in a batch`)
            : Decision.deny(
                Stage.Approval,
                `${decision.decision === 'edit' ? 'edited' : 'rejected'} by ${approver.id} in a batch`,
              );
      const outcome =
        transition.outcome !== 'decided'
          ? transition.outcome
          : { approve: 'approved', reject: 'rejected', edit: 'superseded' }[decision.decision];
      await trails[index].record(recorded, { approvalOutcome: outcome });
      await trails[index].close();
    }
    if (transition.outcome !== 'decided') return { outcome: transition.outcome };
    // Decided: nothing is left to show an approver, so the windows' texts go (ADR 0042). Last, once every item's
    // decision is recorded: a store that cannot forget them fails the request, but never a decision's record.
    for (const { receipt } of decided) await this.contents.forget(receipt.provenance);
    return { outcome: 'decided', batchId, items: decided.map(decidedItem) };
  }

  /** The decisions matched to the pending receipts, each exactly once; edits validated against the schema. */
  private async matched(
    pending: readonly ApprovalReceipt[],
    decisions: readonly ApprovalBatchItemDecision[],
  ): Promise<Decided[]> {
    if (!Array.isArray(decisions)) throw new ApprovalBatchDecisionError('missing_item');
    const decided: Decided[] = [];
    for (const decision of decisions) {
      const receipt = pending.find((r) => r.toolCallId === decision?.toolCallId);
      if (receipt === undefined) throw new ApprovalBatchDecisionError('not_in_batch');
      if (decided.some((d) => d.receipt === receipt))
        throw new ApprovalBatchDecisionError('duplicate_item', receipt.capability);
      if (!['approve', 'reject', 'edit'].includes(decision.decision))
        throw new ApprovalBatchDecisionError('unknown_decision', receipt.capability);
      const edit = decision.decision === 'edit';
      if (!edit && 'arguments' in decision)
        throw new ApprovalBatchDecisionError('arguments_without_edit', receipt.capability);
      if (edit) {
        const definition = this.registry.find(receipt.capability);
        const args = (decision as { arguments?: unknown }).arguments;
        const isObject = typeof args === 'object' && args !== null && !Array.isArray(args);
        const validation =
          definition === undefined || !isObject ? null : await validateArguments(definition.arguments, args);
        if (validation?.valid !== true) throw new ApprovalBatchDecisionError('invalid_arguments', receipt.capability);
      }
      decided.push({ receipt, decision });
    }
    if (decided.length !== pending.length) throw new ApprovalBatchDecisionError('missing_item');
    return decided;
  }

  /**
   * Why the approver may not decide `items`: `forbidden` at the first item whose subject CASL refuses `approve`; else
   * `contained` when the approver's own actor switch is engaged (checked with each item, so a `contained` answer comes
   * only once every item's CASL passed); else `null`. {@link read} answers either refusal; {@link decide} acts on
   * `forbidden` only, and leaves a contained approver to its per-item kill-switch check, which records the refusal.
   */
  private async approverRefusal(approver: Approver, items: readonly ApprovalReceipt[]): Promise<DeciderRefusal | null> {
    let contained = false;
    for (const receipt of items) {
      const refusal = await deciderRefusal(approver.context, 'approve', approvalSubject(receipt), {
        abilityFactory: this.options.abilityFactory,
        containment: this.containment,
      });
      if (refusal === 'forbidden') return refusal;
      contained ||= refusal === 'contained';
    }
    return contained ? 'contained' : null;
  }

  private humanDecision({ receipt, decision }: Decided, approver: Approver, requester: ActionContext): HumanDecision {
    return {
      capability: receipt.capability,
      verdict: decision.decision === 'approve' ? 'approve' : 'reject',
      decider: approver.context,
      requester: {
        actorFingerprint: containedActorFingerprint(requester, this.options),
        tenantFingerprint: tenantFingerprintOf(requester),
      },
    };
  }

  private trailOf(receipt: ApprovalReceipt): EvidenceTrail {
    const trail = decisionTrail({
      evidence: this.evidence,
      clock: () => this.now(),
      capability: receipt.capability,
      toolKind: ToolKind.Approver,
      events: this.events,
    });
    trail.establish({
      approvalPhase: ApprovalPhase.Decision,
      receiptFingerprint: fingerprintString(receipt.id),
      toolCallFingerprint: fingerprintString(receipt.toolCallId),
    });
    return trail;
  }

  /**
   * The batch's receipts that `requester` asked for (any state). Every public entry reads them here: a malformed
   * conversation id or an actor that is not plain JSON fails before the store is read, whether or not the batch
   * exists (`checkRequester`).
   */
  private async requesters(batchId: string, requester: ActionContext): Promise<ApprovalReceipt[]> {
    // No unscoped form here: a batch's receipts are read for the requester who asked for them, or not at all.
    if (requester === undefined)
      throw new VerdictConfigurationError(
        'ApprovalBatchService needs the requester: the context the calls were proposed in.',
      );
    checkRequester(requester, this.registry, this.options);
    const store = this.store();
    // An id holding U+0000 or a lone surrogate names no batch on any store (PostgreSQL would fail its lookup).
    if (!isStorableText(batchId)) return [];
    return (await store.inBatch!(batchId)).filter((r) => askedBy(r, requester, this.registry, this.options));
  }

  private isPending(receipt: ApprovalReceipt): boolean {
    return receipt.status === ReceiptStatus.Pending && !isExpired(receipt, this.now());
  }

  private store(): ApprovalReceiptStore {
    const store = this.options.approvals;
    if (store?.inBatch === undefined || store.decideBatch === undefined)
      throw new VerdictConfigurationError(
        'Batch approvals need a receipt store that keeps batches (InMemoryApprovalReceiptStore, TypeOrmApprovalReceiptStore): pass it as `approvals` to VerdictModule.forRoot.',
      );
    return store;
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}

function batchOf(batchId: string, receipts: readonly ApprovalReceipt[]): ApprovalBatch {
  return {
    batchId,
    items: receipts.map((r) => ({
      toolCallId: r.toolCallId,
      capability: r.capability,
      reason: r.reason,
      description: r.description,
      target: r.subject,
      arguments: r.arguments ?? null,
      expiresAt: r.expiresAt,
      provenance: r.provenance ?? null,
    })),
  };
}

function decidedItem({ receipt, decision }: Decided): DecidedBatchItem {
  const item = { toolCallId: receipt.toolCallId, capability: receipt.capability, decision: decision.decision };
  return decision.decision === 'edit' ? { ...item, arguments: decision.arguments } : item;
}

/** Whether `receipt`'s tool call has another receipt among `ofBatch` (the requester's): it was asked again. */
function isAskedAgain(receipt: ApprovalReceipt, ofBatch: readonly ApprovalReceipt[]): boolean {
  return ofBatch.some((r) => r.id !== receipt.id && r.toolCallId === receipt.toolCallId);
}

function isBatchId(batchId: unknown): batchId is string {
  return typeof batchId === 'string' && batchId.trim() !== '';
}

function checkedBatchId(verb: string, batchId: string): void {
  if (!isBatchId(batchId))
    throw new VerdictConfigurationError(`ApprovalBatchService.${verb} needs a non-blank batch id (approvalBatchId).`);
}

function checkedCall(verb: string, batchId: string, approver: Approver, requester: ActionContext): void {
  const approverId = approver?.id;
  if (!isBatchId(batchId) || !isApproverId(approverId) || !isActionContext(approver.context) || requester === undefined)
    throw new VerdictConfigurationError(
      `ApprovalBatchService.${verb} needs a non-blank batch id, an approver with a non-blank id of at most ${MAX_APPROVER_ID_LENGTH} characters (without U+0000 or a lone surrogate) and an action context, and the requester's action context.`,
    );
}
