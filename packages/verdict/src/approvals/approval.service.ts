import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ActionContext } from '../context/action-context.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { decisionRecord } from '../evidence/decision-record.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { VerdictError } from '../errors/verdict.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { type ApprovalChallenge, challengeOf } from './approval-challenge.js';
import { ApprovalPhase } from './approval-phase.js';
import type { ApprovalReceiptStore, ReceiptTransition } from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { receiptPrincipal } from './receipt-principal.js';
import { UnknownApprovalReceiptError } from './unknown-approval-receipt.error.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
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
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    private readonly releases: ContextReleaseService,
    private readonly contents: ProvenanceContents,
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
   */
  challengeForToolCall(toolCallId: string, requester: ActionContext): Promise<ApprovalChallenge | null>;
  async challengeForToolCall(toolCallId: string, requester?: ActionContext): Promise<ApprovalChallenge | null> {
    const pending = await this.store().pendingForToolCall(toolCallId, this.now());
    const mine = requester === undefined ? pending : pending.filter((receipt) => this.askedBy(receipt, requester));
    if (mine.length !== 1) return null;
    return challengeOf(mine[0]);
  }

  /**
   * Pending approvals of these tool calls that `requester` asked for (see {@link challengeForToolCall}),
   * for an approval UI. Ids with none, or an ambiguous one, are left out. `requester` is required: a
   * listing for nobody in particular is a `VerdictConfigurationError` (it would show anyone's calls).
   */
  async pending(toolCallIds: readonly string[], requester?: ActionContext): Promise<PendingApproval[]> {
    if (requester === undefined) {
      throw new VerdictConfigurationError(
        "ApprovalService.pending needs the requester's action context (actor, tenant, metadata.conversationId): tool-call ids are not globally unique.",
      );
    }
    const found = [];
    for (const toolCallId of toolCallIds) {
      const challenge = await this.challengeForToolCall(toolCallId, requester);
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
   * The raw untrusted text that was in the window of the receipt's proposal, for the approver, released
   * through context release: each untrusted item the receipt recorded (by content fingerprint) goes through
   * the route from its source (`releaseSourceOf`) to `request.destination`, trust `untrusted`, with release
   * evidence as usual (correlated by the receipt's fingerprint). A route that denies yields `refused` and no
   * text. The text itself comes only from this process's memory of the windows that parked calls
   * (`ProvenanceContents`, ADR 0033), never from the receipt: an item forgotten, or parked by another process,
   * is `unavailable`. A receipt the provenance stage did not analyse has no items.
   *
   * @throws UnknownApprovalReceiptError when no receipt has `receiptId` (nothing is released).
   * @throws InvalidReleaseRequestError without a `Destination`.
   * @example
   * const { items } = await approvals.untrustedContent(challenge.receiptId, { destination: Destination.connection('approval-ui', 'staff') });
   */
  async untrustedContent(receiptId: string, request: UntrustedContentRequest): Promise<UntrustedContentRelease> {
    if (typeof receiptId !== 'string' || receiptId.trim() === '')
      throw new VerdictConfigurationError('ApprovalService.untrustedContent needs a non-blank receiptId.');
    checkedDestination(request, 'ApprovalService.untrustedContent');
    const receipt = await this.store().find(receiptId);
    if (receipt === null) throw new UnknownApprovalReceiptError();
    return releaseUntrustedContent(receipt.provenance ?? null, request, {
      contents: this.contents,
      releaser: this.releases,
      correlationId: fingerprintString(receipt.id),
    });
  }

  /** `pending → approved` for this exact receipt and tool call. `by`: an opaque application id (`customer:72`), never PII. */
  approve(receiptId: string, toolCallId: string, by: string): Promise<ReceiptTransition> {
    return this.decide('approve', receiptId, toolCallId, by);
  }

  /** `pending → rejected`; the tool call will never execute. */
  reject(receiptId: string, toolCallId: string, by: string): Promise<ReceiptTransition> {
    return this.decide('reject', receiptId, toolCallId, by);
  }

  private async decide(
    verb: 'approve' | 'reject',
    receiptId: string,
    toolCallId: string,
    by: string,
  ): Promise<ReceiptTransition> {
    for (const [name, value] of Object.entries({ receiptId, toolCallId, by })) {
      if (typeof value !== 'string' || value.trim() === '')
        throw new VerdictConfigurationError(`ApprovalService.${verb} needs a non-blank ${name}.`);
    }
    const now = this.now();
    const transition = await this.store()[verb]({ receiptId, toolCallId, by, now });
    if (transition.outcome === 'approved' || transition.outcome === 'rejected')
      await this.record(transition.receipt, verb, by, now);
    return transition;
  }

  private async record(receipt: ApprovalReceipt, verb: 'approve' | 'reject', by: string, now: Date): Promise<void> {
    const decision =
      verb === 'approve'
        ? Decision.permit(Stage.Approval, `approved by ${by}`)
        : Decision.deny(Stage.Approval, `rejected by ${by}`);
    await this.evidence.recordDecision(
      decisionRecord(
        {
          id: randomUUID(),
          correlationId: randomUUID(),
          sequence: 0,
          capability: receipt.capability,
          toolKind: ToolKind.Approver,
          stage: decision.stage,
          disposition: decision.disposition,
          reason: decision.reason,
          recordedAt: now,
        },
        {
          approvalPhase: ApprovalPhase.Decision,
          approvalOutcome: receipt.status,
          receiptFingerprint: fingerprintString(receipt.id),
          toolCallFingerprint: fingerprintString(receipt.toolCallId),
        },
      ),
    );
  }

  /** Whether `requester` is who asked for `receipt`, in the conversation it was asked in. Unknown capabilities and receipts without fingerprints match nobody. */
  private askedBy(receipt: ApprovalReceipt, requester: ActionContext): boolean {
    const definition = this.registry.find(receipt.capability);
    if (definition === undefined || receipt.principalFingerprint == null || receipt.conversationFingerprint == null)
      return false;
    let principal;
    try {
      // A capability without its own policy is confirmed for provenance with the module's actorKey (ADR 0025).
      const actorKey = definition.requiresConfirmation?.actorKey ?? this.options.actorKey?.bind(this.options);
      principal = receiptPrincipal(requester, actorKey, receipt.capability);
    } catch (error) {
      // Another capability's actorKey may name nobody for this requester (a staff key on a customer): then the
      // receipt is not theirs. A colliding id of that capability must not make the requester's own lookup fail.
      if (error instanceof VerdictError) return false;
      throw error;
    }
    return (
      principal.fingerprint === receipt.principalFingerprint &&
      principal.conversationFingerprint === receipt.conversationFingerprint
    );
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
