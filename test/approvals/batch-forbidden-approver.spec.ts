import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { approvalBatchId } from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { alice, batchFixture, intern, support } from './batch.fixture.js';

/** An approver who may not approve is answered `forbidden` before their decisions are looked at. */
describe.each(receiptStoreBackends())('batch decision by a forbidden approver [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend.close());

  async function batchOfTwo() {
    const fixture = await batchFixture(backend.store());
    const turn = `${Math.random()}`;
    const batchId = approvalBatchId({ conversation: 'c-1', message: turn });
    const ids = [1, 2].map((n) => `call_${turn}_${n}`);
    for (const [index, id] of ids.entries()) await fixture.propose(id, index + 1, { approvalBatch: batchId });
    return { ...fixture, batchId, ids };
  }

  it('guessed tool-call ids: forbidden, never a decision error telling which ids are in the batch', async () => {
    const { batches, batchId, ids, close } = await batchOfTwo();
    const answers = [];
    for (const guess of [[ids[0]], ['call_guess', ...ids], ids]) {
      const decisions = guess.map((toolCallId) => ({ toolCallId, decision: 'approve' as const }));
      answers.push(await batches.decide(batchId, decisions, intern, alice).catch((e: Error) => e.constructor.name));
    }
    const still = await batches.pending(batchId, alice);
    await close();
    expect({ answers, pending: still?.items.length }).toEqual({
      answers: [{ outcome: 'forbidden' }, { outcome: 'forbidden' }, { outcome: 'forbidden' }],
      pending: 2,
    });
  });

  it('control: an approver who may approve still gets the decision error for an item not in the batch', async () => {
    const { batches, batchId, ids, close } = await batchOfTwo();
    const decisions = ['call_guess', ...ids].map((toolCallId) => ({ toolCallId, decision: 'approve' as const }));
    const refused = await batches.decide(batchId, decisions, support, alice).catch((e: unknown) => e);
    const outcome = await batches.decide(batchId, decisions.slice(1), support, alice);
    await close();
    expect({ refused: (refused as { problem?: string }).problem, outcome: outcome.outcome }).toEqual({
      refused: 'not_in_batch',
      outcome: 'decided',
    });
  });
});
