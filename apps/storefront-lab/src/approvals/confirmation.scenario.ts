import { ConflictException, Injectable } from '@nestjs/common';
import { ApprovalService } from '@verdict/nestjs';
import { RefundCapabilities, StorefrontCapability } from '@verdict/storefront';
import { LabCalls } from '../runs/lab-calls.js';
import type { CallView, LabActor, PendingApprovalView } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';

/** A refund the model proposes, as the lab user edits it. */
export interface RefundProposal {
  readonly actor: LabActor;
  readonly orderId: number;
  readonly amountCents: number;
}

/**
 * The confirmation lab: the model proposes a refund (Verdict asks for confirmation and issues a receipt);
 * a support lead signed in to the inbox approves or rejects it through the guarded approval endpoint; the
 * call is then resumed with an explicit approval — with the approved arguments it executes once, with
 * changed ones it asks again, and its replay is refused.
 */
@Injectable()
export class ConfirmationScenario {
  constructor(
    private readonly calls: LabCalls,
    private readonly approvals: ApprovalService,
    private readonly refunds: RefundCapabilities,
    private readonly conversation: LabConversation,
  ) {}

  /** Refunds this lab's calls made (other labs refund too, in the same session: they are not counted here). */
  private made = 0;

  /** The model proposes the refund; nothing is refunded until someone approves this exact call. */
  propose(proposal: RefundProposal): Promise<CallView> {
    const toolCallId = this.conversation.nextToolCallId('call_refund');
    this.conversation.remember(toolCallId, labContext(proposal.actor));
    return this.call(toolCallId, proposal, false);
  }

  /** The proposed call resumed after the inbox answered, with these (possibly changed) arguments. */
  resume(toolCallId: string, proposal: Omit<RefundProposal, 'actor'>): Promise<CallView> {
    const context = this.conversation.requesterOf(toolCallId);
    if (context === null) throw new ConflictException(`No refund ${toolCallId} was proposed in this lab session.`);
    const { customerId } = context.actor as { customerId: number };
    return this.call(toolCallId, { ...proposal, actor: { customerId, tenant: context.tenant! } }, true);
  }

  /** The inbox: every pending approval this session's conversation asked for. */
  async inbox(): Promise<PendingApprovalView[]> {
    const views: PendingApprovalView[] = [];
    for (const toolCallId of this.conversation.toolCallIds()) {
      const requester = this.conversation.requesterOf(toolCallId)!;
      for (const pending of await this.approvals.pending([toolCallId], requester))
        views.push({
          toolCallId,
          capability: pending.capability,
          description: pending.description,
          reason: pending.reason,
          requestedBy: `customer ${(requester.actor as { customerId: number }).customerId} at ${requester.tenant}`,
          expiresAt: pending.expiresAt.toISOString(),
        });
    }
    return views;
  }

  private call(toolCallId: string, { actor, orderId, amountCents }: RefundProposal, explicitApproval: boolean) {
    const before = this.refunds.refunds.length;
    return this.calls.viaVerdict(
      {
        tool: StorefrontCapability.RefundOrder,
        arguments: { orderId, amountCents },
        toolCallId,
        context: labContext(actor),
        untrustedInput: explicitApproval
          ? `The agent resumes ${toolCallId} after the inbox answered`
          : `"I'd like ${amountCents} cents back on order ${orderId}."`,
        observe: () => {
          const byThisCall = this.refunds.refunds.length - before;
          this.made += byThisCall;
          return `${byThisCall} refund(s) made by this call; ${this.made} in this lab`;
        },
      },
      { explicitApproval },
    );
  }
}
