import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { type ActionContext, isActionContext } from '../context/action-context.js';
import { tenantFingerprintOf } from '../context/actor-key.js';
import { containedActorFingerprint } from '../containment/contained-actor.js';
import { DecisionContainment, type HumanDecision } from '../containment/decision-containment.js';
import { decisionTrail } from '../evidence/decision-trail.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { APPROVAL_OPTIONS, type ApprovalOptions } from './approval-options.interface.js';
import { type ApprovalChallenge, challengeOf } from './approval-challenge.js';
import { ApprovalPhase } from './approval-phase.js';
import type { ApprovalReceiptStore, ReceiptTransition } from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { askedBy, checkRequester } from './receipt-requester.js';
import { isExpired } from './receipt-rules.js';
import { ReceiptStatus } from './receipt-status.js';
import { UnknownApprovalReceiptError } from './unknown-approval-receipt.error.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import { type DeciderRefusal, deciderRefusal } from '../containment/decider-refusal.js';
import type { Approver } from './approval-endpoint-hooks.interface.js';
import { approvalSubject } from './approval-subject.js';
import { isApproverId } from './approver-id.js';
import { attributionRule } from '../shared/is-attribution.js';
import { isStorableText } from '../shared/storable-text.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { ProvenanceContents } from '../provenance/provenance-contents.js';
import {
  type UntrustedContentRelease,
  type UntrustedContentRequest,
  checkedDestination,
  releaseUntrustedContent,
} from '../provenance/untrusted-content-release.js';

/** What an approval UI may show about a pending call: trusted data only, no receipt id. */
export interface PendingApproval {
  readonly toolCallId: string;
  readonly capability: string;
  readonly reason: string;
  /** The application's description of the bound resource (`requiresConfirmation({ describe })`). */
  readonly description: string | null;
  readonly expiresAt: Date;
  /** `ApprovalChallenge.provenance`: which sources were in context, which argument came from which untrusted source. */
  readonly provenance: ApproverProvenance | null;
}

/**
 * The untrusted content of a receipt's window for an approver: released (per item, see
 * {@link UntrustedContentRelease}) when the approver may decide the receipt, or why not (ADR 0042): `not_found`
 * (not the requester's receipt, or an approver of another tenant), `forbidden` (no CASL `approve`), `contained`.
 */
export type ApprovalContentRelease =
  | ({ readonly allowed: true } & UntrustedContentRelease)
  | { readonly allowed: false; readonly outcome: 'not_found' | DeciderRefusal };

/**
 * Who takes part in an approval, for kill switches (ADR 0035): the approver's action context and the requester's
 * (the context the tool call was proposed in). `@ApprovalEndpoint()` hands both to the route handler.
 */
export interface ApprovalParties {
  readonly approver?: ActionContext;
  readonly requester?: ActionContext;
}

/** What {@link ApprovalService.approve} or `reject` did: the store's transition, or `contained` (nothing changed). */
export type ApprovalTransition = ReceiptTransition | { readonly outcome: 'contained' };

/**
 * The human side of verified confirmation (docs/approvals.md). Call it from an endpoint that has authenticated
 * the approver and authorized their access to the conversation (see `@ApprovalEndpoint()`): Verdict does
 * not authenticate `by`. Lookups are scoped to the requester — the action context the tool call was
 * proposed in (actor, tenant, `metadata.conversationId`) — because providers' tool-call ids are not
 * globally unique (ADR 0015).
 *
 * @example
 * const challenge = await approvals.challengeForToolCall(interrupted.toolCallId, conversationContext);
 * if (challenge === null) throw new ConflictException();
 * await approvals.approve(challenge.receiptId, challenge.toolCallId, `customer:${user.id}`);
 * await agent.invoke(approveToolCall(challenge.toolCallId), config);
 */
@Injectable()
export class ApprovalService {
  constructor(
    @Inject(APPROVAL_OPTIONS) private readonly options: ApprovalOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    private readonly releases: ContextReleaseService,
    private readonly contents: ProvenanceContents,
    private readonly containment: DecisionContainment,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /**
   * @deprecated Pass the requester: `challengeForToolCall(toolCallId, requester)`. Without one, the single
   * pending receipt of the id across every actor, tenant and conversation is returned (`null` when there is
   * more than one): it cannot tell whose receipt it finds, so never call it with an id from a request.
   */
  challengeForToolCall(toolCallId: string): Promise<ApprovalChallenge | null>;
  /**
   * The pending, unexpired challenge of `toolCallId` that `requester` asked for: the receipt whose
   * principal (actor key within tenant, by the receipt capability's `actorKey`) and conversation are the
   * requester's. `null` when there is none, or more than one (an ambiguous id approves nothing).
   * `requester` is the action context the tool call was proposed in — for an approver acting on someone
   * else's conversation, that conversation's context, never the approver's own. A requester for whom a
   * receipt's capability `actorKey` names nobody did not ask for that receipt.
   * @throws VerdictConfigurationError, NonCanonicalValueError for a requester context the proposal would refuse (`null`
   * — never taken for the deprecated form's absent requester — or a context without a tenant, a malformed
   * conversation id, an actor key that is not plain JSON), before the store is read: whether or not anything is
   * pending under the id.
   */
  challengeForToolCall(toolCallId: string, requester: ActionContext): Promise<ApprovalChallenge | null>;
  async challengeForToolCall(toolCallId: string, requester?: ActionContext): Promise<ApprovalChallenge | null> {
    this.checkRequester(requester);
    return this.checkedChallenge(toolCallId, requester);
  }

  /**
   * Pending approvals of these tool calls that `requester` asked for (see {@link challengeForToolCall}),
   * for an approval UI. Ids with none, or an ambiguous one, are left out. `requester` is required (a tool-call
   * id is not globally unique): an untyped caller that passes none, `null` or a context without a tenant gets a
   * `VerdictConfigurationError`, since a listing for nobody in particular would show anyone's calls. So does one
   * whose `toolCallIds` is not an array of strings (a lone id is not a list of them), before the store is read.
   *
   * @example const [first] = await approvals.pending([toolCallId], conversation.requesterOf(toolCallId));
   */
  async pending(toolCallIds: readonly string[], requester: ActionContext): Promise<PendingApproval[]> {
    if (requester === undefined) {
      throw new VerdictConfigurationError(
        "ApprovalService.pending needs the requester's action context (actor, tenant, metadata.conversationId): tool-call ids are not globally unique.",
      );
    }
    if (!Array.isArray(toolCallIds) || !toolCallIds.every((id) => typeof id === 'string'))
      throw new VerdictConfigurationError('ApprovalService.pending needs an array of tool-call ids.');
    this.checkRequester(requester);
    const found = [];
    for (const toolCallId of toolCallIds) {
      const challenge = await this.checkedChallenge(toolCallId, requester);
      if (challenge !== null)
        found.push({
          toolCallId,
          capability: challenge.capability,
          reason: challenge.reason,
          description: challenge.description,
          expiresAt: challenge.expiresAt,
          provenance: challenge.provenance,
        });
    }
    return found;
  }

  /**
   * The raw untrusted text that was in the window of the receipt's proposal, for an approver who may decide it
   * (ADR 0042), released through context release: each untrusted item the receipt recorded (by content
   * fingerprint) goes through the route from its source (`releaseSourceOf`) to `request.destination`, trust
   * `untrusted`, with release evidence as usual (correlated by the receipt's fingerprint). A route that denies
   * yields `refused` and no text. The text comes from the module's store of parked windows' texts
   * (`provenance.contents`, ADR 0042; default: this process's memory), never from the receipt: an item the
   * store no longer holds is `unavailable`. A receipt the provenance stage did not analyse has no items.
   *
   * The approver is checked as a reviewer is (`ReviewService.untrustedContent`): `not_found` unless the receipt
   * is `requester`'s (actor, tenant and conversation, as `challengeForToolCall` scopes it) and the approver is of
   * the requester's tenant; `forbidden` without CASL `approve` on the receipt's `'Approval'` subject; `contained`
   * while a kill switch is engaged for the approver's actor. Nothing is released then.
   *
   * @param requester The action context the tool call was proposed in (what `@ApprovalEndpoint()` hands the
   * route). Default: the approver's own (approvers read only what they asked for themselves).
   * @throws UnknownApprovalReceiptError when no pending, unexpired receipt has `receiptId` (nothing is released):
   * once approved, rejected, superseded, consumed or expired there is nothing left to decide on.
   * @throws VerdictConfigurationError without a receipt id or an approver with a non-blank id and an action context
   * (`isActionContext`), or for a requester whose conversation id is malformed (checked before the receipt is read,
   * as every requester-scoped lookup).
   * @throws NonCanonicalValueError for a requester whose actor key is not plain JSON (checked as early).
   * @throws InvalidReleaseRequestError without a `Destination`.
   * @example
   * const content = await approvals.untrustedContent(challenge.receiptId, approver, { destination: Destination.connection('approval-ui', 'staff') }, requester);
   * if (content.allowed) show(content.items);
   */
  async untrustedContent(
    receiptId: string,
    approver: Approver,
    request: UntrustedContentRequest,
    requester: ActionContext = approver?.context,
  ): Promise<ApprovalContentRelease> {
    if (typeof receiptId !== 'string' || receiptId.trim() === '' || !hasApproverId(approver))
      throw new VerdictConfigurationError(
        'ApprovalService.untrustedContent needs a non-blank receiptId and an approver with a non-blank id and an action context.',
      );
    checkedDestination(request, 'ApprovalService.untrustedContent');
    this.checkRequester(requester);
    const receipt = isStorableText(receiptId) ? await this.store().find(receiptId) : null;
    // The text is there to decide on: a decided, consumed or expired receipt has nothing left to decide.
    if (receipt === null || receipt.status !== ReceiptStatus.Pending || isExpired(receipt, this.now()))
      throw new UnknownApprovalReceiptError();
    if (requester?.tenant !== approver.context.tenant || !this.askedBy(receipt, requester))
      return { allowed: false, outcome: 'not_found' };
    const refusal = await deciderRefusal(approver.context, 'approve', approvalSubject(receipt), {
      abilityFactory: this.options.abilityFactory,
      containment: this.containment,
    });
    if (refusal !== null) return { allowed: false, outcome: refusal };
    const release = await releaseUntrustedContent(receipt.provenance ?? null, request, {
      contents: this.contents,
      releaser: this.releases,
      correlationId: fingerprintString(receipt.id),
    });
    return { allowed: true, ...release };
  }

  /**
   * `pending → approved` for this exact receipt and tool call. `by`: an opaque application id (`customer:72`),
   * never PII, of at most 255 characters (the receipt's column; a longer one throws `VerdictConfigurationError`
   * before anything is recorded). Refused (`contained`, nothing changes) while a kill switch is engaged for the
   * receipt's capability, or — when `parties` names them, as `@ApprovalEndpoint()` gives them — for the approver or
   * the requester (actor or tenant). Pass `parties`: without them the approver's own switches are not checked at
   * all (the requester's still refuse the resumed call at step 0, which runs as the requester). `parties` that are
   * not an object (`null`) throw `VerdictConfigurationError` before anything is read or recorded.
   */
  approve(receiptId: string, toolCallId: string, by: string, parties?: ApprovalParties): Promise<ApprovalTransition> {
    return this.decide('approve', receiptId, toolCallId, by, parties);
  }

  /** `pending → rejected`; the tool call will never execute. Refused (`contained`) only for a contained approver (`parties.approver`). */
  reject(receiptId: string, toolCallId: string, by: string, parties?: ApprovalParties): Promise<ApprovalTransition> {
    return this.decide('reject', receiptId, toolCallId, by, parties);
  }

  private async decide(
    verb: 'approve' | 'reject',
    receiptId: string,
    toolCallId: string,
    by: string,
    parties: ApprovalParties = {},
  ): Promise<ApprovalTransition> {
    for (const [name, value] of Object.entries({ receiptId, toolCallId, by })) {
      if (typeof value !== 'string' || value.trim() === '')
        throw new VerdictConfigurationError(`ApprovalService.${verb} needs a non-blank ${name}.`);
    }
    if (typeof parties !== 'object' || parties === null)
      throw new VerdictConfigurationError(
        `ApprovalService.${verb} takes parties as an object ({ approver, requester }), or none.`,
      );
    // Refused before anything is recorded, alike on every engine: a longer one does not fit the receipt's column.
    if (!isApproverId(by))
      throw new VerdictConfigurationError(`ApprovalService.${verb} needs a by ${attributionRule(by)}.`);
    const now = this.now();
    const store = this.store();
    // An id holding U+0000 or a lone surrogate names no receipt on any store (PostgreSQL would fail its lookup).
    if (!isStorableText(receiptId) || !isStorableText(toolCallId)) return { outcome: 'not_found' };
    const found = await store.find(receiptId);
    // Not this receipt of this tool call: the store refuses it (and nothing is recorded, as nothing changes).
    if (found === null || found.toolCallId !== toolCallId) return store[verb]({ receiptId, toolCallId, by, now });
    const trail = decisionTrail({
      evidence: this.evidence,
      clock: () => this.now(),
      capability: found.capability,
      toolKind: ToolKind.Approver,
      events: this.events,
    });
    trail.establish({
      approvalPhase: ApprovalPhase.Decision,
      receiptFingerprint: fingerprintString(found.id),
      toolCallFingerprint: fingerprintString(found.toolCallId),
    });
    const decision: HumanDecision = {
      capability: found.capability,
      verdict: verb,
      decider: parties.approver,
      requester:
        parties.requester === undefined
          ? undefined
          : {
              actorFingerprint: containedActorFingerprint(parties.requester, this.options),
              tenantFingerprint: tenantFingerprintOf(parties.requester),
            },
    };
    const contained = await this.containment.check(decision);
    if (contained !== null) {
      await trail.record(contained, { approvalOutcome: 'contained' });
      await trail.close();
      this.containment.report(decision, contained, trail.correlationId, now);
      return { outcome: 'contained' };
    }
    // Evidence before the transition: an approval nobody could record does not happen.
    await trail.record(Decision.permit(Stage.Approval, `${verb} by ${by}: approver authorized`), {
      approvalOutcome: 'authorized',
    });
    await trail.beforeMutation();
    const transition = await store[verb]({ receiptId, toolCallId, by, now });
    trail.markMutated();
    await trail.record(
      transition.outcome === 'approved'
        ? Decision.permit(Stage.Approval, `approved by ${by}`)
        : transition.outcome === 'rejected'
          ? Decision.deny(Stage.Approval, `rejected by ${by}`)
          : Decision.deny(Stage.Approval, `${verb} by ${by} refused: ${transition.outcome}`),
      {
        approvalOutcome:
          transition.outcome === 'approved' || transition.outcome === 'rejected'
            ? transition.receipt.status
            : transition.outcome,
      },
    );
    await trail.close();
    // Decided: nothing is left to show an approver, so the window's texts go (ADR 0042). Last: a store that cannot
    // forget them fails the request, but never the decision's record.
    if (transition.outcome === 'approved' || transition.outcome === 'rejected')
      await this.contents.forget(found.provenance);
    return transition;
  }

  /**
   * {@link challengeForToolCall} for a requester already checked (`checkRequester`, once per public call): the single
   * pending, unexpired challenge of `toolCallId` that `requester` asked for (any one without a requester), else `null`.
   */
  private async checkedChallenge(toolCallId: string, requester?: ActionContext): Promise<ApprovalChallenge | null> {
    // An id holding U+0000 or a lone surrogate names no tool call on any store (PostgreSQL would fail its lookup).
    if (!isStorableText(toolCallId)) return null;
    const pending = await this.store().pendingForToolCall(toolCallId, this.now());
    const mine = requester === undefined ? pending : pending.filter((receipt) => this.askedBy(receipt, requester));
    if (mine.length !== 1) return null;
    return challengeOf(mine[0]);
  }

  /** Fails before any receipt is read for a requester context the proposal would refuse (`checkRequester`). */
  private checkRequester(requester: ActionContext | undefined): void {
    checkRequester(requester, this.registry, this.options);
  }

  /** Whether `requester` is who asked for `receipt`, in the conversation it was asked in (`askedBy`). */
  private askedBy(receipt: ApprovalReceipt, requester: ActionContext): boolean {
    return askedBy(receipt, requester, this.registry, this.options);
  }

  private store(): ApprovalReceiptStore {
    const store = this.options.approvals;
    if (store === undefined)
      throw new VerdictConfigurationError(
        'No approval receipt store is configured: pass `approvals` to VerdictModule.forRoot.',
      );
    return store;
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}

function hasApproverId(approver: Approver | undefined): approver is Approver {
  return typeof approver?.id === 'string' && approver.id.trim() !== '' && isActionContext(approver.context);
}
