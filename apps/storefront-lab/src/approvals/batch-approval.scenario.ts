import { BadRequestException, ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import {
  type ActionContext,
  ApprovalBatchDecisionError,
  type ApprovalBatchItemDecision,
  ApprovalBatchService,
  approvalBatchId,
} from '@verdict/nestjs';
import { RefundCapabilities, StorefrontCapability } from '@verdict/storefront';
import { LabCalls } from '../runs/lab-calls.js';
import type { BatchDecisionView, BatchProposalView, BatchReadView, CallView, LabActor } from '../runs/lab-run.js';
import { LAB_CONVERSATION, labApprover, labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';

/** Refunds the model proposes in one turn, as the lab user edits them. */
export interface BatchRefundProposal {
  readonly actor: LabActor;
  readonly refunds: ReadonlyArray<{ readonly orderId: number; readonly amountCents: number }>;
}

/** How a call reached the pipeline: proposed in the turn, resumed after the decision, or edited by the approver. */
type BatchCallKind = 'proposed' | 'resumed' | 'edited';

/** A batch of this session: who asked, which turn and round it is. */
interface AskedBatch {
  readonly requester: ActionContext;
  readonly turn: string;
  readonly round: number;
}

/**
 * The batch-approval lab (docs/approvals.md "Batch approvals"): the model proposes several refunds in one turn;
 * each needs confirmation and joins the turn's batch; the signed-in approver sees them together and approves,
 * rejects or edits each. Approved refunds then run once, rejected ones are refused, and an edited one is a new
 * proposal that asks for its own approval in the next round's batch. Each call's side effect is the refunds that
 * call made, read from the payment provider before and after it.
 */
@Injectable()
export class BatchApprovalScenario {
  private readonly batches = new Map<string, AskedBatch>();

  constructor(
    private readonly calls: LabCalls,
    private readonly approvalBatches: ApprovalBatchService,
    private readonly conversation: LabConversation,
    private readonly refunds: RefundCapabilities,
  ) {}

  /** The model's turn: every refund goes through the pipeline, in one batch. */
  async propose({ actor, refunds }: BatchRefundProposal): Promise<BatchProposalView> {
    const requester = labContext(actor);
    const turn = this.conversation.nextToolCallId('turn');
    const batch = { requester, turn, round: 0 };
    const batchId = batchIdOf(batch);
    this.batches.set(batchId, batch);
    const calls: CallView[] = [];
    for (const refund of refunds) {
      const toolCallId = this.conversation.nextToolCallId('call_refund');
      this.conversation.remember(toolCallId, requester);
      calls.push(await this.call(toolCallId, requester, refund, { approvalBatch: batchId }, 'proposed'));
    }
    return { batchId, calls };
  }

  /** The batch as the signed-in approver (the `x-lab-approver` header) may see it. */
  async read(batchId: string, approverHeader: unknown): Promise<BatchReadView> {
    const { approver, asked } = this.parties(batchId, approverHeader);
    const read = await this.approvalBatches.read(batchId, approver, asked.requester);
    if (!read.allowed) return read;
    return {
      allowed: true,
      batchId,
      items: read.items.map(({ toolCallId, capability, reason, description, expiresAt, ...item }) => ({
        toolCallId,
        capability,
        reason,
        description,
        arguments: item.arguments as { orderId: number; amountCents: number },
        expiresAt: expiresAt.toISOString(),
      })),
    };
  }

  /** The approver decides every item; the lab then resumes the calls as an agent would. */
  async decide(
    batchId: string,
    decisions: ApprovalBatchItemDecision[],
    approverHeader: unknown,
  ): Promise<BatchDecisionView> {
    const { approver, asked } = this.parties(batchId, approverHeader);
    const shown = await this.approvalBatches.pending(batchId, asked.requester);
    let outcome;
    try {
      outcome = await this.approvalBatches.decide(batchId, decisions, approver, asked.requester);
    } catch (error) {
      if (error instanceof ApprovalBatchDecisionError) throw new BadRequestException({ problem: error.problem });
      throw error;
    }
    if (outcome.outcome !== 'decided') return { outcome: outcome.outcome, nextBatchId: null, calls: [] };
    // An edited call is a new proposal for the next round's batch; that batch is asked only if an edit joined it
    // (an edit the pipeline denies, e.g. to another customer's order, asks nobody).
    const next = { ...asked, round: asked.round + 1 };
    const calls: CallView[] = [];
    for (const item of outcome.items) {
      const proposed = shown!.items.find((i) => i.toolCallId === item.toolCallId)!.arguments as {
        orderId: number;
        amountCents: number;
      };
      calls.push(
        item.decision === 'edit'
          ? await this.call(
              item.toolCallId,
              asked.requester,
              item.arguments as typeof proposed,
              { approvalBatch: batchIdOf(next) },
              'edited',
            )
          : await this.call(item.toolCallId, asked.requester, proposed, { explicitApproval: true }, 'resumed'),
      );
    }
    const askedAgain = outcome.items.some(
      (item, index) => item.decision === 'edit' && calls[index]!.outcome === 'require_confirmation',
    );
    if (askedAgain) this.batches.set(batchIdOf(next), next);
    return { outcome: 'decided', nextBatchId: askedAgain ? batchIdOf(next) : null, calls };
  }

  private parties(batchId: string, approverHeader: unknown) {
    const approver = labApprover(approverHeader);
    if (approver === null) throw new UnauthorizedException('Sign in to the approval inbox first.');
    const asked = this.batches.get(batchId);
    if (asked === undefined) throw new ConflictException('No such batch was asked in this lab session.');
    return { approver, asked };
  }

  private async call(
    toolCallId: string,
    context: ActionContext,
    { orderId, amountCents }: { orderId: number; amountCents: number },
    options: { approvalBatch?: string; explicitApproval?: boolean },
    kind: BatchCallKind,
  ): Promise<CallView> {
    const before = this.refunds.refunds.length;
    const view = await this.calls.viaVerdict(
      {
        tool: StorefrontCapability.RefundOrder,
        arguments: { orderId, amountCents },
        toolCallId,
        context,
        untrustedInput:
          kind === 'resumed'
            ? `The agent resumes ${toolCallId} after the batch was decided`
            : kind === 'edited'
              ? `The approver edited ${toolCallId}: the edit is a new proposal`
              : `"Refund ${amountCents} cents on order ${orderId}, please."`,
        observe: () => {
          const made = this.refunds.refunds.slice(before);
          return made.length === 0
            ? 'no refund made'
            : made.map((refund) => `refunded ${refund.amountCents} cents on order ${refund.orderId}`).join('; ');
        },
      },
      options,
    );
    return { ...view, sideEffect: sideEffectOf(kind, view) };
  }
}

function batchIdOf(batch: AskedBatch): string {
  return approvalBatchId({ conversation: LAB_CONVERSATION, message: batch.turn, round: batch.round });
}

/** What a call caused, in words: the refunds it made, and whether it now waits in a batch or was resumed. */
function sideEffectOf(kind: BatchCallKind, { outcome, sideEffect }: CallView): string {
  if (outcome === 'require_confirmation' && sideEffect === 'no refund made')
    return kind === 'edited' ? 'no refund yet: asked again in the next batch' : 'no refund yet: asked in the batch';
  return kind === 'resumed' ? `resumed after the batch decision: ${sideEffect}` : sideEffect;
}
