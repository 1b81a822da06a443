import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VerdictConfigurationError, approvalBatchId } from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { alice, batchFixture, support } from './batch.fixture.js';

/** Bad input to the approval services is a `VerdictConfigurationError` on every store, and changes nothing. */
describe.each(receiptStoreBackends())('approval services given bad input [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend.close());

  const thrown = (call: () => Promise<unknown>) =>
    call().then(
      (value) => ['answered', value],
      (error: unknown) => (error instanceof VerdictConfigurationError ? 'VerdictConfigurationError' : error),
    );

  it('ApprovalBatchService.pending and isDecided without a batch id: typed error, not another batch', async () => {
    const { batches, propose, close } = await batchFixture(backend.store());
    await propose(`call_${Math.random()}_alone`, 3);
    const got = [];
    for (const batchId of [null, undefined, '  ', 42])
      got.push(
        await thrown(() => batches.pending(batchId as never, alice)),
        await thrown(() => batches.isDecided(batchId as never, alice)),
      );
    await close();
    expect(new Set(got)).toEqual(new Set(['VerdictConfigurationError']));
  });

  it('control: pending and isDecided of a batch id list and report its receipts', async () => {
    const { batches, propose, close } = await batchFixture(backend.store());
    const batchId = approvalBatchId({ conversation: 'c-1', message: `${Math.random()}` });
    const call = `call_${Math.random()}_batched`;
    await propose(call, 3, { approvalBatch: batchId });
    const listed = await batches.pending(batchId, alice);
    const decided = await batches.isDecided(batchId, alice);
    await close();
    expect({ listed: listed?.items.map((i) => i.toolCallId), decided }).toEqual({ listed: [call], decided: false });
  });

  it('ApprovalService.approve with null parties and pending without an array of ids: typed error', async () => {
    const { approvals, propose, close } = await batchFixture(backend.store());
    const call = `call_${Math.random()}_single`;
    await propose(call, 4);
    const challenge = (await approvals.challengeForToolCall(call, alice))!;
    const got = [
      await thrown(() => approvals.approve(challenge.receiptId, call, 'staff:sam', null as never)),
      await thrown(() => approvals.reject(challenge.receiptId, call, 'staff:sam', null as never)),
      ...(await Promise.all([null, call, 42, [42]].map((ids) => thrown(() => approvals.pending(ids as never, alice))))),
    ];
    const still = await approvals.challengeForToolCall(call, alice);
    await close();
    expect({ got: new Set(got), pending: still?.receiptId }).toEqual({
      got: new Set(['VerdictConfigurationError']),
      pending: challenge.receiptId,
    });
  });

  it('control: pending lists the call, and approve with the parties approves it', async () => {
    const { approvals, propose, archived, close } = await batchFixture(backend.store());
    const call = `call_${Math.random()}_single`;
    await propose(call, 4);
    const [listed] = await approvals.pending([call], alice);
    const challenge = (await approvals.challengeForToolCall(call, alice))!;
    const parties = { approver: support.context, requester: alice };
    const transition = await approvals.approve(challenge.receiptId, call, support.id, parties);
    const run = await propose(call, 4, { explicitApproval: true });
    await close();
    expect({ listed: listed.description, outcome: transition.outcome, executed: run.executed, archived }).toEqual({
      listed: 'Archive document 4',
      outcome: 'approved',
      executed: true,
      archived: [4],
    });
  });
});
