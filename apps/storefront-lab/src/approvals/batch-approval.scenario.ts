import { BadRequestException, ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import {
  type ActionContext,
  ApprovalBatchDecisionError,
  type ApprovalBatchItemDecision,
  ApprovalBatchService,
  approvalBatchId,
} from '@verdict/nestjs';
import { StorefrontCapability } from '@verdict/storefront';
import { LabCalls } from '../runs/lab-calls.js';
import type { BatchDecisionView, BatchProposalView, BatchReadView, LabActor } from '../runs/lab-run.js';
import { LAB_CONVERSATION, labApprover, labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';

/** Refunds the model proposes in one turn, as the lab user edits them. */
export interface BatchRefundProposal {
  readonly actor: LabActor;
  readonly refunds: ReadonlyArray<{ readonly orderId: number; readonly amountCents: number }>;
}

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
 * proposal that asks for its own approval in the next round's batch.
 */
@Injectable()
export class BatchApprovalScenario {
  private readonly batches = new Map<string, AskedBatch>();

  constructor(
    private readonly calls: LabCalls,
    private readonly approvalBatches: ApprovalBatchService,
    private readonly conversation: LabConversation,
  ) {}

  /** The model's turn: every refund goes through the pipeline, in one batch. */
  async propose({ actor, refunds }: BatchRefundProposal): Promise<BatchProposalView> {
    const requester = labContext(actor);
    const turn = this.conversation.nextToolCallId('turn');
    const batchId = this.ask({ requester, turn, round: 0 });
    const calls = [];
    for (const refund of refunds) {
      const toolCallId = this.conversation.nextToolCallId('call_refund');
      this.conversation.remember(toolCallId, requester);
      calls.push(await this.call(toolCallId, requester, refund, { approvalBatch: batchId }));
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
    const nextBatchId = outcome.items.some((item) => item.decision === 'edit')
      ? this.ask({ ...asked, round: asked.round + 1 })
      : null;
    const calls = [];
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
              {
                approvalBatch: nextBatchId!,
              },
              true,
            )
          : await this.call(item.toolCallId, asked.requester, proposed, { explicitApproval: true }),
      );
    }
    return { outcome: 'decided', nextBatchId, calls };
  }

  private ask(batch: AskedBatch): string {
    const batchId = approvalBatchId({ conversation: LAB_CONVERSATION, message: batch.turn, round: batch.round });
    this.batches.set(batchId, batch);
    return batchId;
  }

  private parties(batchId: string, approverHeader: unknown) {
    const approver = labApprover(approverHeader);
    if (approver === null) throw new UnauthorizedException('Sign in to the approval inbox first.');
    const asked = this.batches.get(batchId);
    if (asked === undefined) throw new ConflictException('No such batch was asked in this lab session.');
    return { approver, asked };
  }

  private call(
    toolCallId: string,
    context: ActionContext,
    { orderId, amountCents }: { orderId: number; amountCents: number },
    options: { approvalBatch?: string; explicitApproval?: boolean },
    edited = false,
  ) {
    return this.calls.viaVerdict(
      {
        tool: StorefrontCapability.RefundOrder,
        arguments: { orderId, amountCents },
        toolCallId,
        context,
        untrustedInput: options.explicitApproval
          ? `The agent resumes ${toolCallId} after the batch was decided`
          : edited
            ? `The approver edited ${toolCallId}: the edit is a new proposal`
            : `"Refund ${amountCents} cents on order ${orderId}, please."`,
        observe: () => (options.explicitApproval ? 'resumed after the batch decision' : 'asked in the batch'),
      },
      options,
    );
  }
}
