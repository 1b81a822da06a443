import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type Approver, VerdictConfigurationError, approvalBatchId } from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';

/** `length` characters, unique per call: the stores are shared by the tests of an engine. */
const unique = (prefix: string, length: number) => `${prefix}${randomBytes(8).toString('hex')}`.padEnd(length, 'x');
const supportWithId = (id: string): Approver => ({ ...support, id });

/**
 * docs/approvals.md "Identifier lengths": an `approvalBatch` longer than the receipts' `varchar(64)` `batch_id`, and an
 * approver id (`by`, `approver.id`) longer than their `varchar(255)` `approved_by` / `rejected_by`, are refused with
 * `VerdictConfigurationError` before anything is recorded, on every engine alike. They used to be stored on SQLite and
 * in memory, and fail with a raw `QueryFailedError` on PostgreSQL and MariaDB (the approver's after its `authorized`
 * record, with no closing one).
 */
describe.each(receiptStoreBackends())('identifiers longer than their receipt columns [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  describe('approvalBatch', () => {
    it('attack: a 65-character batch id (not blank, so it passed) is refused before anything is asked or recorded', async () => {
      const { propose, approvals, evidence, close } = await batchFixture(backend.store());
      const call = unique('call_', 20);
      await expect(propose(call, 1, { approvalBatch: unique('conversation-7/message-', 65) })).rejects.toThrow(
        VerdictConfigurationError,
      );
      await expect(propose(call, 1, { approvalBatch: unique('conversation-7/message-', 103) })).rejects.toThrow(
        /approvalBatch is at most 64 characters \(got 103\)/,
      );
      expect(evidence.decisions()).toEqual([]);
      expect(await approvals.challengeForToolCall(call, alice)).toBeNull();
      await close();
    });

    it('control: a 64-character batch id (what approvalBatchId derives, or any name of that length) is asked for', async () => {
      const { propose, batches, close } = await batchFixture(backend.store());
      for (const batch of [
        unique('conversation-7/message-', 64),
        approvalBatchId({ conversation: 'c-1', message: unique('m', 9) }),
      ]) {
        expect(batch).toHaveLength(64);
        expect(await propose(unique('call_', 20), 1, { approvalBatch: batch })).toMatchObject({
          decision: { disposition: 'require_confirmation' },
        });
        expect(await batches.pending(batch, alice)).toMatchObject({
          batchId: batch,
          items: [{ capability: 'documents.archive' }],
        });
      }
      await close();
    });
  });

  describe('the approver id of one receipt (`by`)', () => {
    it('attack: a 256-character `by` is refused by approve and reject: nothing recorded, the receipt still pending', async () => {
      const { propose, approvals, evidence, close } = await batchFixture(backend.store());
      const call = unique('call_', 20);
      await propose(call, 1);
      const { receiptId } = (await approvals.challengeForToolCall(call, alice))!;
      const by = unique('staff:', 256);
      await expect(approvals.approve(receiptId, call, by)).rejects.toThrow(VerdictConfigurationError);
      await expect(approvals.reject(receiptId, call, by)).rejects.toThrow(/by of at most 255 characters \(got 256\)/);
      expect(evidence.decisions().filter((record) => record.toolKind === 'approver')).toEqual([]);
      expect(await approvals.challengeForToolCall(call, alice)).toMatchObject({ receiptId });
      await close();
    });

    it('control: a 255-character `by` approves, recorded as authorized then approved', async () => {
      const { propose, approvals, evidence, close } = await batchFixture(backend.store());
      const call = unique('call_', 20);
      await propose(call, 1);
      const { receiptId } = (await approvals.challengeForToolCall(call, alice))!;
      expect(await approvals.approve(receiptId, call, unique('staff:', 255))).toMatchObject({ outcome: 'approved' });
      const approver = evidence.decisions().filter((record) => record.toolKind === 'approver');
      expect(approver.map((record) => record.approvalOutcome)).toEqual(['authorized', 'approved']);
      expect(await propose(call, 1, { explicitApproval: true })).toMatchObject({ executed: true });
      await close();
    });
  });

  describe('the approver id of a batch (`approver.id`)', () => {
    async function batchOfTwo() {
      const fixture = await batchFixture(backend.store());
      const batchId = approvalBatchId({ conversation: 'c-1', message: unique('m', 9) });
      const ids = [unique('call_', 20), unique('call_', 20)];
      for (const [index, id] of ids.entries()) await fixture.propose(id, index + 1, { approvalBatch: batchId });
      const approveAll = ids.map((toolCallId) => ({ toolCallId, decision: 'approve' as const }));
      return { ...fixture, batchId, approveAll };
    }

    it('attack: a 256-character approver id is refused before anything is recorded; the batch stays pending', async () => {
      const { batches, batchId, approveAll, evidence, close } = await batchOfTwo();
      const approver = supportWithId(unique('staff:', 256));
      await expect(batches.decide(batchId, approveAll, approver, alice)).rejects.toThrow(VerdictConfigurationError);
      await expect(batches.read(batchId, approver, alice)).rejects.toThrow(/at most 255 characters/);
      expect(evidence.decisions().filter((record) => record.toolKind === 'approver')).toEqual([]);
      expect(await batches.isDecided(batchId, alice)).toBe(false);
      await close();
    });

    it('control: a 255-character approver id decides the batch', async () => {
      const { batches, batchId, approveAll, close } = await batchOfTwo();
      const approver = supportWithId(unique('staff:', 255));
      expect(await batches.read(batchId, approver, alice)).toMatchObject({ allowed: true });
      expect(await batches.decide(batchId, approveAll, approver, alice)).toMatchObject({ outcome: 'decided' });
      await close();
    });
  });
});
