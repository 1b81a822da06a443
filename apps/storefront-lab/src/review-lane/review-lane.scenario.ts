import { Injectable } from '@nestjs/common';
import { InProcessDeferredQueue, type ReviewTransition, fingerprintString } from '@verdict/nestjs';
import { DecisionRecordEntity, ReviewItemEntity } from '@verdict/nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LabCalls } from '../runs/lab-calls.js';
import type { CallView, LabActor, ReviewAnswer, ReviewItemView } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import { STAFF_REFUND, StaffRefundCapabilities } from './staff-refund.capabilities.js';

/**
 * The review lab: the model proposes a refund above the threshold, Verdict parks it (`require_review`), a
 * staff member approves or rejects it through the guarded review endpoint, and the in-process worker runs it
 * as the customer, at most once.
 */
@Injectable()
export class ReviewLaneScenario {
  constructor(
    private readonly calls: LabCalls,
    private readonly conversation: LabConversation,
    private readonly refunds: StaffRefundCapabilities,
    private readonly dataSource: DataSource,
    private readonly queue: InProcessDeferredQueue,
  ) {}

  /** The tool calls this lab proposed, to tell which call each review item came from. */
  private readonly proposed: string[] = [];

  /** One proposed staff refund (proposing the same tool call again finds its item). */
  propose(input: { actor: LabActor; orderId: number; amountCents: number }): Promise<CallView> {
    const { actor, orderId, amountCents } = input;
    const toolCallId = this.conversation.nextToolCallId('call_staff_refund');
    this.proposed.push(toolCallId);
    const before = this.refunds.refunds.length;
    return this.calls.viaVerdict({
      tool: STAFF_REFUND,
      arguments: { orderId, amountCents },
      toolCallId,
      context: labContext(actor),
      untrustedInput: `Customer ${actor.customerId}: "Refund ${amountCents} cents on order ${orderId}, the parcel never arrived."`,
      observe: () =>
        this.refunds.refunds.length === before ? 'no refund yet: parked until staff decide' : this.refundsSince(before),
    });
  }

  /**
   * A reviewer's decision and what it caused: the worker runs what an approval queued (awaited, never slept
   * for), and the side effect is only what happened since the decision, credited to the item's own call.
   */
  async answer(decide: () => Promise<ReviewTransition>): Promise<ReviewAnswer> {
    const before = this.refunds.refunds.length;
    const { outcome, itemId } = await decide();
    await this.queue.idle();
    const item = (await this.items()).find((candidate) => candidate.itemId === itemId) ?? null;
    return { outcome, item, sideEffect: this.refundsSince(before) };
  }

  /** Every item of this session, newest first, with its status and the review-stage records about it. */
  async items(): Promise<ReviewItemView[]> {
    const items = await this.dataSource.getRepository(ReviewItemEntity).find({ order: { createdAt: 'DESC' } });
    const records = this.dataSource.getRepository(DecisionRecordEntity);
    return Promise.all(
      items.map(async (item) => {
        const trail = await records.find({
          where: { receiptFingerprint: fingerprintString(item.id) },
          order: { recordedAt: 'ASC', sequence: 'ASC' },
        });
        const asked = trail.map((record) => record.toolCallFingerprint);
        return {
          itemId: item.id,
          toolCallId: this.proposed.find((id) => asked.includes(fingerprintString(id))) ?? null,
          capability: item.capability,
          description: item.description,
          reason: item.reason,
          status: item.status,
          decidedBy: item.decidedBy,
          expiresAt: item.expiresAt.toISOString(),
          history: trail.map((record) => ({
            phase: record.approvalPhase ?? record.stage,
            outcome: record.approvalOutcome ?? record.disposition,
            disposition: record.disposition,
            toolKind: record.toolKind,
          })),
        };
      }),
    );
  }

  /** The staff refunds made since the list had `before` entries, in words. */
  private refundsSince(before: number): string {
    const made = this.refunds.refunds.slice(before);
    return made.length === 0
      ? 'no refund made'
      : made.map((refund) => `refunded ${refund.amountCents} cents on order ${refund.orderId}`).join('; ');
  }
}
