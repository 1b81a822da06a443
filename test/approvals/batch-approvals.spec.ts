import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ApprovalBatchDecisionError,
  type ApprovalBatchItemDecision,
  approvalBatchId,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { alice, batchFixture, bob, intern, otherSupport, support } from './batch.fixture.js';

const approveAll = (ids: string[]): ApprovalBatchItemDecision[] =>
  ids.map((toolCallId) => ({ toolCallId, decision: 'approve' }));

describe.each(receiptStoreBackends())('ApprovalBatchService [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend.close());

  /** Three confirming calls of one turn, proposed by alice in one batch (unique ids per test: stores are shared). */
  async function setup() {
    const store = backend.store();
    const fixture = await batchFixture(store);
    const turn = `${Math.random()}`;
    const batchId = approvalBatchId({ conversation: 'c-1', message: turn });
    const ids = [1, 2, 3].map((n) => `call_${turn}_${n}`);
    for (const [index, id] of ids.entries()) {
      const result = await fixture.propose(id, index + 1, { approvalBatch: batchId });
      expect(result).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    }
    const runApproved = (index: number, id = index + 1) =>
      fixture.propose(ids[index], id, { explicitApproval: true, approvalBatch: batchId });
    return { ...fixture, store, batchId, ids, runApproved };
  }

  describe('propose', () => {
    it('refuses a blank or non-string approvalBatch with VerdictConfigurationError, and asks for nothing', async () => {
      const store = backend.store();
      const { propose, evidence, close } = await batchFixture(store);
      const turn = `${Math.random()}`;
      for (const [n, approvalBatch] of ['', '   ', 42, { id: 'batch' }].entries())
        await expect(propose(`call_${turn}_bad_${n}`, 1, { approvalBatch: approvalBatch as string })).rejects.toThrow(
          VerdictConfigurationError,
        );
      // No receipt was asked and no decision recorded: nothing a batch could never decide is left pending.
      expect(evidence.decisions()).toEqual([]);
      // Control: a batch id from approvalBatchId is asked for as before.
      await expect(
        propose(`call_${turn}_ok`, 1, { approvalBatch: approvalBatchId({ conversation: 'c-1', message: turn }) }),
      ).resolves.toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
      await close();
    });
  });

  describe('read', () => {
    it('shows the approver every pending item with capability, arguments and target, and no receipt id', async () => {
      const { batches, batchId, ids, close } = await setup();
      const read = await batches.read(batchId, support, alice);
      expect(read).toMatchObject({ allowed: true, batchId });
      const items = read.allowed ? read.items : [];
      expect(items.map((i) => [i.toolCallId, i.capability, i.arguments, i.target])).toEqual(
        ids.map((id, index) => [id, 'documents.archive', { id: index + 1 }, { owner: 'alice', tenant: 'acme' }]),
      );
      expect(JSON.stringify(read)).not.toMatch(/rcpt_/);
      await close();
    });

    it('shows nothing to another requester, an approver of another tenant, or one without CASL approve', async () => {
      const { batches, batchId, close } = await setup();
      expect(await batches.read(batchId, support, bob)).toEqual({ allowed: false, outcome: 'not_found' });
      expect(await batches.read(batchId, otherSupport, alice)).toEqual({ allowed: false, outcome: 'not_found' });
      expect(await batches.read(batchId, intern, alice)).toEqual({ allowed: false, outcome: 'forbidden' });
      await close();
    });
  });

  describe('decide', () => {
    it('approve all: every call then runs exactly once, and a replay of any is refused', async () => {
      const { batches, batchId, ids, runApproved, archived, close } = await setup();
      const outcome = await batches.decide(batchId, approveAll(ids), support, alice);
      expect(outcome).toMatchObject({ outcome: 'decided', batchId });
      for (const index of [0, 1, 2]) expect(await runApproved(index)).toMatchObject({ executed: true });
      expect(archived).toEqual([1, 2, 3]);
      expect(await runApproved(0)).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
      expect(archived).toEqual([1, 2, 3]);
      await close();
    });

    it('mixed: the approved call runs, the rejected one never, the edited one only as a new, separately approved proposal', async () => {
      const { batches, batchId, ids, runApproved, archived, propose, close } = await setup();
      const outcome = await batches.decide(
        batchId,
        [
          { toolCallId: ids[0], decision: 'approve' },
          { toolCallId: ids[1], decision: 'reject' },
          { toolCallId: ids[2], decision: 'edit', arguments: { id: 5 } },
        ],
        support,
        alice,
      );
      expect(outcome).toEqual({
        outcome: 'decided',
        batchId,
        items: [
          { toolCallId: ids[0], capability: 'documents.archive', decision: 'approve' },
          { toolCallId: ids[1], capability: 'documents.archive', decision: 'reject' },
          { toolCallId: ids[2], capability: 'documents.archive', decision: 'edit', arguments: { id: 5 } },
        ],
      });
      expect(await runApproved(0)).toMatchObject({ executed: true });
      expect(await runApproved(1)).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
      // The edited call's original receipt is closed: its arguments can never run again.
      expect(await runApproved(2)).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
      // The edit is a new proposal: it asks for its own approval (no approval carried over from the edit).
      const round = approvalBatchId({ conversation: 'c-1', message: batchId, round: 1 });
      expect(await propose(ids[2], 5, { approvalBatch: round })).toMatchObject({
        executed: false,
        decision: { disposition: 'require_confirmation' },
      });
      expect(await propose(ids[2], 5, { explicitApproval: true })).toMatchObject({ executed: false });
      expect(await batches.decide(round, [{ toolCallId: ids[2], decision: 'approve' }], support, alice)).toMatchObject({
        outcome: 'decided',
      });
      expect(await propose(ids[2], 5, { explicitApproval: true })).toMatchObject({ executed: true });
      expect(archived).toEqual([1, 5]);
      await close();
    });

    it('an edit the actor may not make is denied when proposed, and nothing runs', async () => {
      const { batches, batchId, ids, archived, propose, close } = await setup();
      const decisions: ApprovalBatchItemDecision[] = [
        ...approveAll(ids.slice(0, 2)),
        { toolCallId: ids[2], decision: 'edit', arguments: { id: 9 } },
      ];
      expect(await batches.decide(batchId, decisions, support, alice)).toMatchObject({ outcome: 'decided' });
      const round = approvalBatchId({ conversation: 'c-1', message: batchId, round: 1 });
      const edited = await propose(ids[2], 9, { approvalBatch: round, explicitApproval: true });
      expect(edited).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'proposal' } });
      expect(await batches.pending(round, alice)).toBeNull();
      expect(archived).toEqual([]);
      await close();
    });

    it('refuses a batch decided twice, and the second decision changes nothing', async () => {
      const { batches, batchId, ids, runApproved, archived, close } = await setup();
      const reject = ids.map((toolCallId) => ({ toolCallId, decision: 'reject' as const }));
      expect(await batches.decide(batchId, reject, support, alice)).toMatchObject({ outcome: 'decided' });
      expect(await batches.decide(batchId, approveAll(ids), support, alice)).toEqual({ outcome: 'invalid_state' });
      expect(await runApproved(0)).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
      expect(archived).toEqual([]);
      await close();
    });

    it.each([
      ['another requester', support, bob, 'not_found'],
      ['an approver of another tenant', otherSupport, alice, 'not_found'],
      ['an approver without CASL approve', intern, alice, 'forbidden'],
    ] as const)('refuses %s, and the batch stays pending', async (_name, approver, requester, outcome) => {
      const { batches, batchId, ids, runApproved, archived, close } = await setup();
      expect(await batches.decide(batchId, approveAll(ids), approver, requester)).toEqual({ outcome });
      expect(await runApproved(0)).toMatchObject({ decision: { disposition: 'require_confirmation' } });
      expect((await batches.pending(batchId, alice))?.items).toHaveLength(3);
      expect(archived).toEqual([]);
      await close();
    });

    it.each([
      [
        'an item not in the batch',
        (ids: string[]) => [...approveAll(ids), { toolCallId: 'call_elsewhere', decision: 'approve' }],
        'not_in_batch',
      ],
      ['an item left out', (ids: string[]) => approveAll(ids.slice(0, 2)), 'missing_item'],
      [
        'an item named twice',
        (ids: string[]) => [...approveAll(ids), { toolCallId: ids[0], decision: 'reject' }],
        'duplicate_item',
      ],
      [
        'changed arguments without an edit',
        (ids: string[]) => [
          { toolCallId: ids[0], decision: 'approve', arguments: { id: 9 } },
          ...approveAll(ids.slice(1)),
        ],
        'arguments_without_edit',
      ],
      [
        'edited arguments the schema refuses',
        (ids: string[]) => [
          { toolCallId: ids[0], decision: 'edit', arguments: { id: 'x' } },
          ...approveAll(ids.slice(1)),
        ],
        'invalid_arguments',
      ],
      [
        'an unknown decision',
        (ids: string[]) => [{ toolCallId: ids[0], decision: 'approve_all' }, ...approveAll(ids.slice(1))],
        'unknown_decision',
      ],
    ])('fails with a typed error on %s, and changes nothing', async (_name, decisions, problem) => {
      const { batches, batchId, ids, evidence, close } = await setup();
      const recorded = evidence.decisions().length;
      const attempt = batches.decide(batchId, decisions(ids) as ApprovalBatchItemDecision[], support, alice);
      await expect(attempt).rejects.toBeInstanceOf(ApprovalBatchDecisionError);
      await expect(
        batches.decide(batchId, decisions(ids) as ApprovalBatchItemDecision[], support, alice),
      ).rejects.toMatchObject({ problem });
      expect(evidence.decisions()).toHaveLength(recorded);
      expect((await batches.pending(batchId, alice))?.items).toHaveLength(3);
      await close();
    });

    it('never runs a call approved in the batch with other arguments than the approved ones', async () => {
      const { batches, batchId, ids, archived, propose, close } = await setup();
      await batches.decide(batchId, approveAll(ids), support, alice);
      expect(await propose(ids[0], 4, { explicitApproval: true })).toMatchObject({
        executed: false,
        decision: { disposition: 'require_confirmation' },
      });
      expect(archived).toEqual([]);
      await close();
    });

    it('records each decision with fingerprints only: no tool-call id, receipt id or argument', async () => {
      const { batches, batchId, ids, evidence, close } = await setup();
      await batches.decide(
        batchId,
        [...approveAll(ids.slice(0, 2)), { toolCallId: ids[2], decision: 'edit', arguments: { id: 5 } }],
        support,
        alice,
      );
      const approver = evidence.decisions().filter((r) => r.toolKind === 'approver');
      expect(approver.map((r) => r.approvalOutcome)).toEqual(
        expect.arrayContaining(['authorized', 'approved', 'superseded']),
      );
      const text = JSON.stringify(evidence.decisions());
      for (const id of ids) expect(text).not.toContain(id);
      expect(text).not.toMatch(/rcpt_|"id":5/);
      await close();
    });

    it("a batched call decided on its own keeps no arguments; the batch's other items are then decided together", async () => {
      const { batches, approvals, store, batchId, ids, runApproved, archived, close } = await setup();
      const [first, second] = await store.inBatch!(batchId);
      expect((await approvals.approve(first!.id, first!.toolCallId, support.id)).outcome).toBe('approved');
      expect((await approvals.reject(second!.id, second!.toolCallId, support.id)).outcome).toBe('rejected');
      const stored = await store.inBatch!(batchId);
      expect(stored.map((r) => [r.toolCallId, r.status, r.arguments])).toEqual([
        [ids[0], 'approved', null],
        [ids[1], 'rejected', null],
        [ids[2], 'pending', { id: 3 }],
      ]);
      await expect(batches.decide(batchId, approveAll(ids), support, alice)).rejects.toThrow(
        ApprovalBatchDecisionError,
      );
      expect(await batches.decide(batchId, approveAll(ids.slice(2)), support, alice)).toMatchObject({
        outcome: 'decided',
      });
      expect((await store.inBatch!(batchId)).map((r) => r.arguments)).toEqual([null, null, null]);
      for (const index of [0, 1, 2]) await runApproved(index);
      expect(archived).toEqual([1, 3]);
      await close();
    });

    it("of a single rejection racing the batch's approval of the same receipt exactly one applies", async () => {
      const { batches, approvals, store, batchId, ids, runApproved, archived, close } = await setup();
      const [first] = await store.inBatch!(batchId);
      const [single, batch] = await Promise.all([
        approvals.reject(first!.id, first!.toolCallId, support.id),
        // Decided after the rejection, the batch no longer holds that item as pending: a typed refusal.
        batches.decide(batchId, approveAll(ids), support, alice).catch((error: unknown) => {
          if (error instanceof ApprovalBatchDecisionError) return { outcome: error.problem };
          throw error;
        }),
      ]);
      expect([single.outcome === 'rejected', batch.outcome === 'decided'].filter(Boolean)).toHaveLength(1);
      await runApproved(0);
      expect(archived).toEqual(single.outcome === 'rejected' ? [] : [1]);
      await close();
    });

    it('of two racing decisions of one batch exactly one applies', async () => {
      const { batches, batchId, ids, close } = await setup();
      const reject = ids.map((toolCallId) => ({ toolCallId, decision: 'reject' as const }));
      const outcomes = await Promise.all([
        batches.decide(batchId, approveAll(ids), support, alice),
        batches.decide(batchId, reject, support, alice),
      ]);
      expect(outcomes.filter((o) => o.outcome === 'decided')).toHaveLength(1);
      await close();
    });
  });
});
