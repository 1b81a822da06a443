import { describe, expect, it } from '@jest/globals';
import {
  InMemoryApprovalReceiptStore,
  InMemoryProvenanceContentStore,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  approvalBatchId,
  labelContent,
  withProvenance,
} from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';

/**
 * Once an approver decides, the texts kept for them are forgotten (ADR 0042). That is the decision's last step: a content
 * store that cannot forget fails the approver's request, never the decision's record. Before, an approval whose store
 * failed was applied (the receipt approved, and the resumed call executed) with its `approved` record never written.
 */
describe('an approver’s decision is recorded before the texts kept for the approver are forgotten', () => {
  /** A content store that is down when asked to forget. */
  const failingContents = () => {
    const contents = new InMemoryProvenanceContentStore();
    contents.forget = () => Promise.reject(new Error('content store down'));
    return contents;
  };
  /** A window that held an untrusted ticket: the receipt keeps its text for the approver. */
  const window = ProvenanceWindow.of([
    labelContent('Please archive what the ticket says.', ProvenanceSource.user('chat'), Trust.Trusted),
    labelContent('Ticket 88: archive documents 1 and 2.', ProvenanceSource.retrieval('tickets'), Trust.Untrusted),
  ]);
  /** The capability's policy: allowed under untrusted context, so the approver is asked only for its confirmation. */
  const allowed = { untrustedContext: 'allow', arguments: { id: 'allow' } } as const;
  type Fixture = Awaited<ReturnType<typeof batchFixture>>;
  /** Proposes `documents.archive` as alice in that window. */
  const propose = (
    fixture: Fixture,
    toolCallId: string,
    id: number,
    options: { approvalBatch?: string; explicitApproval?: boolean } = {},
  ) =>
    fixture.as(alice, () =>
      withProvenance(window, () =>
        fixture.moduleRef
          .get(VerdictService)
          .execute({ capability: 'documents.archive', arguments: { id }, toolCallId }, options),
      ),
    );
  const outcomes = (fixture: Fixture) =>
    fixture.evidence
      .decisions()
      .filter((record) => record.toolKind === 'approver')
      .map((record) => record.approvalOutcome);

  it.each([
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const)(
    'attack: a store that cannot forget fails the %s request, and the decision is recorded',
    async (verb, outcome) => {
      const fixture = await batchFixture(
        new InMemoryApprovalReceiptStore(),
        { provenance: { contents: failingContents() } },
        allowed,
      );
      await propose(fixture, 'call_1', 1);
      const challenge = (await fixture.approvals.challengeForToolCall('call_1', alice))!;

      await expect(fixture.approvals[verb](challenge.receiptId, 'call_1', support.id)).rejects.toThrow(
        'content store down',
      );

      expect(outcomes(fixture)).toEqual(['authorized', outcome]);
      const resumed = await propose(fixture, 'call_1', 1, { explicitApproval: true });
      expect(resumed.executed).toBe(verb === 'approve');
      await fixture.close();
    },
  );

  it('attack: a store that cannot forget fails a batch decision, and every item’s decision is recorded', async () => {
    const fixture = await batchFixture(
      new InMemoryApprovalReceiptStore(),
      { provenance: { contents: failingContents() } },
      allowed,
    );
    const batch = approvalBatchId({ conversation: 'c-1', message: 'm-1' });
    await propose(fixture, 'call_1', 1, { approvalBatch: batch });
    await propose(fixture, 'call_2', 2, { approvalBatch: batch });

    await expect(
      fixture.batches.decide(
        batch,
        [
          { toolCallId: 'call_1', decision: 'approve' },
          { toolCallId: 'call_2', decision: 'reject' },
        ],
        support,
        alice,
      ),
    ).rejects.toThrow('content store down');

    expect(outcomes(fixture)).toEqual(expect.arrayContaining(['approved', 'rejected']));
    await fixture.close();
  });

  it('control: with a working store the approval answers approved, is recorded, and the resumed call executes', async () => {
    const fixture = await batchFixture(
      new InMemoryApprovalReceiptStore(),
      { provenance: { contents: new InMemoryProvenanceContentStore() } },
      allowed,
    );
    await propose(fixture, 'call_1', 1);
    const challenge = (await fixture.approvals.challengeForToolCall('call_1', alice))!;

    expect((await fixture.approvals.approve(challenge.receiptId, 'call_1', support.id)).outcome).toBe('approved');

    expect(outcomes(fixture)).toEqual(['authorized', 'approved']);
    expect((await propose(fixture, 'call_1', 1, { explicitApproval: true })).executed).toBe(true);
    expect(fixture.archived).toEqual([1]);
    await fixture.close();
  });
});
