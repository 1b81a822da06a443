import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  type DecisionRecord,
  EvidenceWriteFailedError,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  VerdictService,
} from '@verdict/nestjs';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { bootReviewLane } from './review-lane.fixture.js';

const DONE = { approve: 'approved', reject: 'rejected' } as const;

/** Evidence that can be made to fail: a database outage, as a reviewer's or approver's decision meets it. */
class FailingEvidenceRecorder extends InMemoryEvidenceRecorder {
  failing = false;

  override async recordDecision(record: DecisionRecord): Promise<void> {
    if (this.failing) throw new Error('evidence database unavailable');
    await super.recordDecision(record);
  }
}

async function reviewLane() {
  const evidence = new FailingEvidenceRecorder();
  const lane = await bootReviewLane({ evidence });
  return { ...lane, evidence, itemId: await lane.propose(), staff: lane.reviewer('staff:7') };
}

describe('a reviewer decision is recorded before it is applied', () => {
  for (const verdict of ['approve', 'reject'] as const) {
    it(`${verdict}: an evidence failure stops the decision and leaves the item pending; with evidence back, it applies (control)`, async () => {
      const { reviews, items, queue, evidence, refunds, itemId, staff } = await reviewLane();
      evidence.failing = true;
      await expect(reviews[verdict](itemId, staff)).rejects.toBeInstanceOf(EvidenceWriteFailedError);
      await queue.idle();
      expect((await items.find(itemId))?.status).toBe('pending');
      expect(refunds).toHaveLength(0);

      evidence.failing = false;
      expect(await reviews[verdict](itemId, staff)).toMatchObject({ outcome: DONE[verdict] });
      await queue.idle();
      expect(refunds).toHaveLength(verdict === 'approve' ? 1 : 0);
      const decided = evidence.decisions().filter((record) => record.approvalPhase === 'review_decision');
      expect(decided.map((record) => record.approvalOutcome)).toEqual(['authorized', DONE[verdict]]);
    });
  }
});

describe('an approver decision is recorded before it is applied', () => {
  for (const verdict of ['approve', 'reject'] as const) {
    it(`${verdict}: an evidence failure stops the decision and leaves the receipt pending; with evidence back, it applies (control)`, async () => {
      const fixture = documentsFixture();
      const archived: AuthorizedAction[] = [];
      const evidence = new FailingEvidenceRecorder();
      const receipts = new InMemoryApprovalReceiptStore();
      const { moduleRef } = await fixture.boot({
        capabilities: [archiveCapability(fixture, archived)],
        evidence,
        approvals: receipts,
      });
      const approvals = moduleRef.get(ApprovalService);
      await moduleRef
        .get(ActionContextStore)
        .run(alice, () =>
          moduleRef
            .get(VerdictService)
            .execute({ capability: 'documents.archive', arguments: { id: 1 }, toolCallId: 'call_1' }),
        );
      const { receiptId, toolCallId } = (await approvals.challengeForToolCall('call_1', alice))!;
      evidence.failing = true;
      await expect(approvals[verdict](receiptId, toolCallId, 'customer:alice')).rejects.toBeInstanceOf(
        EvidenceWriteFailedError,
      );
      expect((await receipts.find(receiptId))?.status).toBe('pending');

      evidence.failing = false;
      expect(await approvals[verdict](receiptId, toolCallId, 'customer:alice')).toMatchObject({
        outcome: DONE[verdict],
      });
      expect((await receipts.find(receiptId))?.status).toBe(DONE[verdict]);
    });
  }
});
