import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApprovalBatchItemDecision, VerdictService, approvalBatchId } from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { alice, batchFixture, bob, support } from './batch.fixture.js';

/**
 * A batch decision decides exactly what its approver read (ADR 0168): a tool call asked again in the batch after its
 * receipt was decided on its own is refused, and another principal's receipts under the same batch id neither count
 * nor change. On every receipt store.
 */
describe.each(receiptStoreBackends())('batch decision binding [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend.close());

  async function batchOfTwo() {
    const fixture = await batchFixture(backend.store());
    const turn = `${Math.random()}`;
    const batchId = approvalBatchId({ conversation: 'c-1', message: turn });
    const [first, second] = [1, 2].map((n) => `call_${turn}_${n}`);
    await fixture.propose(first, 1, { approvalBatch: batchId });
    await fixture.propose(second, 2, { approvalBatch: batchId });
    const approveBoth: ApprovalBatchItemDecision[] = [
      { toolCallId: first, decision: 'approve' },
      { toolCallId: second, decision: 'approve' },
    ];
    return { ...fixture, batchId, first, second, approveBoth };
  }

  it('a tool call decided on its own and asked again with other arguments: the batch is not decided', async () => {
    const { batches, approvals, propose, archived, close, batchId, first, approveBoth } = await batchOfTwo();
    const shown = await batches.read(batchId, support, alice);
    expect(shown.allowed && shown.items.find((i) => i.toolCallId === first)?.arguments).toEqual({ id: 1 });
    // The first call is rejected on its own, then proposed again in the batch with other arguments.
    const challenge = (await approvals.challengeForToolCall(first, alice))!;
    expect(await approvals.reject(challenge.receiptId, first, 'staff:other')).toMatchObject({ outcome: 'rejected' });
    expect((await propose(first, 3, { approvalBatch: batchId })).decision.disposition).toBe('require_confirmation');
    // The approver submits the decisions for what they were shown: document 3 was never shown.
    const outcome = await batches.decide(batchId, approveBoth, support, alice);
    const run = await propose(first, 3, { explicitApproval: true });
    await close();
    expect({ outcome, executed: run.executed, archived }).toEqual({
      outcome: { outcome: 'invalid_state' },
      executed: false,
      archived: [],
    });
  });

  it('control: the batch read, then decided, runs what was approved', async () => {
    const { batches, propose, archived, close, batchId, first, second } = await batchOfTwo();
    const shown = await batches.read(batchId, support, alice);
    expect(shown.allowed && shown.items.map((i) => i.arguments)).toEqual([{ id: 1 }, { id: 2 }]);
    const decisions: ApprovalBatchItemDecision[] = [
      { toolCallId: first, decision: 'approve' },
      { toolCallId: second, decision: 'reject' },
    ];
    const outcome = await batches.decide(batchId, decisions, support, alice);
    const runs = [
      await propose(first, 1, { explicitApproval: true }),
      await propose(second, 2, { explicitApproval: true }),
    ];
    await close();
    expect({ outcome: outcome.outcome, executed: runs.map((r) => r.executed), archived }).toEqual({
      outcome: 'decided',
      executed: [true, false],
      archived: [1],
    });
  });

  it("another principal's pending receipt under the same batch id leaves the requester's batch decidable", async () => {
    const { batches, moduleRef, as, propose, archived, close, batchId, first, approveBoth } = await batchOfTwo();
    const verdict = moduleRef.get(VerdictService);
    const bobs = `call_bob_${Math.random()}`;
    const proposal = { capability: 'documents.archive', arguments: { id: 9 }, toolCallId: bobs };
    const asked = await as(bob, () => verdict.execute(proposal, { approvalBatch: batchId }));
    expect(asked.decision.disposition).toBe('require_confirmation');
    const shown = await batches.read(batchId, support, alice);
    expect(shown.allowed && shown.items).toHaveLength(2);
    const outcome = await batches.decide(batchId, approveBoth, support, alice);
    const run = await propose(first, 1, { explicitApproval: true });
    // Bob's receipt is untouched: still pending in his own batch.
    const his = await batches.pending(batchId, bob);
    await close();
    expect({
      outcome: outcome.outcome,
      executed: run.executed,
      archived,
      his: his?.items.map((i) => i.toolCallId),
    }).toEqual({ outcome: 'decided', executed: true, archived: [1], his: [bobs] });
  });
});
