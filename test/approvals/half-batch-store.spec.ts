import { describe, expect, it } from '@jest/globals';
import {
  type ApprovalReceiptStore,
  approvalBatchId,
  InMemoryApprovalReceiptStore,
  type ReceiptIssue,
} from '@verdict/nestjs';
import {
  type ContractRunner,
  type ContractTestFn,
  describeApprovalReceiptStoreContract,
} from '@verdict/nestjs/testing';
import { batchFixture } from './batch.fixture.js';

type Part = 'inBatch' | 'decideBatch' | 'prune';

/** An in-memory store without the given optional methods; `issued` records what the gate asked it to keep. */
function storeWithout(...missing: Part[]) {
  const inner = new InMemoryApprovalReceiptStore();
  const issued: ReceiptIssue[] = [];
  const store = Object.create(inner) as ApprovalReceiptStore;
  for (const part of missing) Object.defineProperty(store, part, { value: undefined });
  Object.defineProperty(store, 'issue', {
    value: (request: ReceiptIssue) => {
      issued.push(request);
      return inner.issue(request);
    },
  });
  return { store, issued };
}

/** Half a batch API: a decideBatch that decides nothing, and no inBatch. */
function halfBatchStore(): ApprovalReceiptStore {
  const { store } = storeWithout('inBatch');
  Object.defineProperty(store, 'decideBatch', { value: async () => ({ outcome: 'decided', receipts: [] }) });
  return store;
}

/**
 * Runs the approval receipt store contract on `store` in order, as a runner whose test context can skip would
 * (`node:test`'s `t.skip`), and answers each test's outcome by its name within the suite.
 */
async function runContract(store: ApprovalReceiptStore): Promise<Map<string, string>> {
  const tests: Array<{ name: string; fn: ContractTestFn }> = [];
  const hooks: { before: ContractTestFn[]; after: ContractTestFn[] } = { before: [], after: [] };
  const path: string[] = [];
  const runner: ContractRunner = {
    describe: (name, fn) => {
      path.push(name);
      fn();
      path.pop();
    },
    it: (name, fn) => void tests.push({ name: [...path.slice(1), name].join(' › '), fn }),
    beforeAll: (fn) => void hooks.before.push(fn),
    afterAll: (fn) => void hooks.after.push(fn),
  };
  describeApprovalReceiptStoreContract('under test', async () => ({ store, close: async () => {} }), { runner });
  const outcomes = new Map<string, string>();
  for (const fn of hooks.before) await fn();
  for (const { name, fn } of tests) {
    let skipped: string | undefined;
    const context = { skip: (note?: string) => void (skipped = note ?? '') };
    try {
      await (fn as (context: unknown) => unknown)(context);
      outcomes.set(name, skipped === undefined ? 'passed' : `skipped: ${skipped}`);
    } catch (error) {
      outcomes.set(name, `failed: ${(error as Error).message}`);
    }
  }
  for (const fn of hooks.after) await fn();
  return outcomes;
}

const ofBlock = (outcomes: Map<string, string>, block: string) =>
  [...outcomes].filter(([name]) => name.startsWith(block)).map(([, outcome]) => outcome);
const BATCHES = 'batches';
const PRUNE = 'prune';

describe('the approval receipt store contract and the optional batch and prune API', () => {
  it('fails a store with decideBatch but no inBatch (half a batch API), in every batch test, with a clear message', async () => {
    const outcomes = await runContract(halfBatchStore());

    const batch = ofBlock(outcomes, BATCHES);
    expect(batch).toHaveLength(9);
    for (const outcome of batch)
      expect(outcome).toBe(
        'failed: Half a batch API: the store has decideBatch but no inBatch. Implement both (ADR 0102), or neither: ' +
          'the confirmation gate and ApprovalBatchService use batches only with both.',
      );
  });

  it('fails a store with inBatch but no decideBatch too', async () => {
    const outcomes = await runContract(storeWithout('decideBatch').store);

    expect(new Set(ofBlock(outcomes, BATCHES))).toEqual(
      new Set([expect.stringMatching(/^failed: Half a batch API: the store has inBatch but no decideBatch\./)]),
    );
  });

  it('reports the batch and prune tests of a store without those methods skipped, not passed', async () => {
    const outcomes = await runContract(storeWithout('inBatch', 'decideBatch', 'prune').store);

    expect(ofBlock(outcomes, BATCHES)).toEqual([
      'passed', // has decideBatch and inBatch both, or neither
      ...Array<string>(8).fill('skipped: the store keeps no batches (no decideBatch, no inBatch)'),
    ]);
    expect(ofBlock(outcomes, PRUNE)).toEqual(Array<string>(2).fill('skipped: the store does not prune (no prune)'));
  });

  it('control: runs and passes every test, batches and prune included, on the in-memory store', async () => {
    const outcomes = await runContract(new InMemoryApprovalReceiptStore());

    expect(ofBlock(outcomes, BATCHES)).toEqual(Array<string>(9).fill('passed'));
    expect(ofBlock(outcomes, PRUNE)).toEqual(Array<string>(2).fill('passed'));
    expect([...outcomes.values()].every((o) => o === 'passed')).toBe(true);
  });
});

describe('the confirmation gate and a store with half a batch API', () => {
  it('never hands a store without inBatch the batch or the arguments: the receipt is asked on its own', async () => {
    const { store, issued } = storeWithout('inBatch');
    Object.defineProperty(store, 'decideBatch', { value: async () => ({ outcome: 'decided', receipts: [] }) });
    const { propose, close } = await batchFixture(store);
    const turn = `${Math.random()}`;

    const result = await propose(`call_${turn}`, 1, {
      approvalBatch: approvalBatchId({ conversation: 'c-1', message: turn }),
    });

    expect(result).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(issued).toHaveLength(1);
    expect(issued[0]!.batch).toBeUndefined();
    expect((await store.pendingForToolCall(`call_${turn}`, new Date()))[0]).toMatchObject({
      batchId: null,
      arguments: null,
    });
    await close();
  });

  it('control: a store with both methods keeps the batch and the arguments of the proposal', async () => {
    const { store, issued } = storeWithout();
    const { propose, close } = await batchFixture(store);
    const turn = `${Math.random()}`;
    const batchId = approvalBatchId({ conversation: 'c-1', message: turn });

    await propose(`call_${turn}`, 1, { approvalBatch: batchId });

    expect(issued.map((request) => request.batch)).toEqual([{ id: batchId, arguments: { id: 1 } }]);
    expect((await store.inBatch!(batchId)).map((r) => r.arguments)).toEqual([{ id: 1 }]);
    await close();
  });
});
