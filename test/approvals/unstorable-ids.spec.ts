import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Destination, UnknownApprovalReceiptError, VerdictConfigurationError, approvalBatchId } from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';

const unique = (prefix: string) => prefix + randomBytes(8).toString('hex');
/** Ids holding what PostgreSQL refuses (U+0000) or what has no UTF-8 form (a lone surrogate). */
const unstorable = (prefix: string) => [`${unique(prefix)}\u0000x`, `${unique(prefix)}\ud800`];

/**
 * ADR 0186: the ids an approval UI or a resumed run hands `ApprovalService` and `ApprovalBatchService` (a tool-call
 * id, a receipt id, a batch id from a URL; an approver id) are text every engine stores and finds: well-formed,
 * without U+0000. PostgreSQL refuses U+0000 where SQLite, MariaDB and memory keep it: such an id failed every lookup
 * with a raw `QueryFailedError` (an approval endpoint answered 500, not 409), and an approver id holding one failed the
 * approval after its `authorized` record, the receipt left pending.
 */
describe.each(receiptStoreBackends())('identifiers no engine stores alike, on approvals [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  /** The archive lane on the engine's receipts, with one call of alice's pending (`call`, `receiptId`). */
  async function pendingCall() {
    const fixture = await batchFixture(backend.store());
    const call = unique('call_');
    await fixture.propose(call, 1);
    const { receiptId } = (await fixture.approvals.challengeForToolCall(call, alice))!;
    const approverRecords = () => fixture.evidence.decisions().filter((record) => record.toolKind === 'approver');
    return { ...fixture, call, receiptId, approverRecords };
  }

  it('attack: such a tool-call id is a recorded deny at proposal, and asks for no approval', async () => {
    const { propose, approvals, evidence, close } = await batchFixture(backend.store());
    const answers = [];
    for (const call of unstorable('call_')) answers.push((await propose(call, 1)).decision);
    const [challenge] = await Promise.all(unstorable('call_').map((id) => approvals.challengeForToolCall(id, alice)));
    await close();
    expect(answers.map(({ disposition, stage }) => `${stage}/${disposition}`)).toEqual([
      'proposal/deny',
      'proposal/deny',
    ]);
    expect(evidence.decisions().map((record) => `${record.stage}/${record.disposition}`)).toEqual([
      'proposal/deny',
      'proposal/deny',
    ]);
    expect(challenge).toBeNull();
  });

  it('attack: such a tool-call id or receipt id names nothing pending: no challenge, not_found, nothing recorded', async () => {
    const { approvals, call, receiptId, approverRecords, close } = await pendingCall();
    const got = [];
    for (const id of unstorable('call_')) {
      got.push(await approvals.challengeForToolCall(id, alice));
      got.push((await approvals.pending([id], alice)).length);
      got.push((await approvals.approve(receiptId, id, 'staff:7')).outcome);
      got.push((await approvals.reject(id, call, 'staff:7')).outcome);
      got.push(
        await approvals
          .untrustedContent(id, support, { destination: Destination.connection('approval-ui', 'staff') }, alice)
          .catch((error: unknown) => (error instanceof UnknownApprovalReceiptError ? 'unknown receipt' : error)),
      );
    }
    const recorded = approverRecords();
    const stillPending = await approvals.challengeForToolCall(call, alice);
    await close();
    expect(got).toEqual([
      null,
      0,
      'not_found',
      'not_found',
      'unknown receipt',
      null,
      0,
      'not_found',
      'not_found',
      'unknown receipt',
    ]);
    expect(recorded).toEqual([]);
    expect(stillPending).toMatchObject({ receiptId });
  });

  it('attack: such an approver id is refused by approve and reject: nothing recorded, the receipt still pending', async () => {
    const { approvals, call, receiptId, approverRecords, close } = await pendingCall();
    const [nul, surrogate] = unstorable('staff:');
    await expect(approvals.approve(receiptId, call, nul!)).rejects.toThrow(VerdictConfigurationError);
    await expect(approvals.reject(receiptId, call, surrogate!)).rejects.toThrow(
      /needs a by without U\+0000 or a lone surrogate/,
    );
    const recorded = approverRecords();
    const stillPending = await approvals.challengeForToolCall(call, alice);
    await close();
    expect({ recorded, stillPending }).toEqual({ recorded: [], stillPending: expect.objectContaining({ receiptId }) });
  });

  it('control: a pending call is found by its ids and approved by an approver id with an astral character', async () => {
    const { approvals, propose, call, receiptId, approverRecords, close } = await pendingCall();
    expect(await approvals.pending([call], alice)).toMatchObject([{ toolCallId: call }]);
    expect(await approvals.approve(receiptId, call, 'staff:😀')).toMatchObject({
      outcome: 'approved',
      receipt: { approvedBy: 'staff:😀' },
    });
    const outcomes = approverRecords().map((record) => record.approvalOutcome);
    const resumed = await propose(call, 1, { explicitApproval: true });
    await close();
    expect({ outcomes, executed: resumed.executed }).toEqual({ outcomes: ['authorized', 'approved'], executed: true });
  });

  it('attack: such a batch id names no batch, and such an approver id decides none: nothing recorded', async () => {
    const { batches, propose, evidence, close } = await batchFixture(backend.store());
    const batchId = approvalBatchId({ conversation: 'c-1', message: unique('m') });
    const call = unique('call_');
    await propose(call, 1, { approvalBatch: batchId });
    const got = [];
    for (const id of unstorable('batch_')) {
      got.push(await batches.pending(id, alice));
      got.push(await batches.isDecided(id, alice));
      got.push((await batches.read(id, support, alice)).allowed);
      got.push((await batches.decide(id, [{ toolCallId: call, decision: 'approve' }], support, alice)).outcome);
    }
    const approveAll = [{ toolCallId: call, decision: 'approve' as const }];
    for (const id of unstorable('staff:'))
      await expect(batches.decide(batchId, approveAll, { ...support, id }, alice)).rejects.toThrow(
        VerdictConfigurationError,
      );
    // An approvalBatch of the application holding either is refused when the call is proposed.
    for (const id of unstorable('batch_'))
      await expect(propose(unique('call_'), 2, { approvalBatch: id })).rejects.toThrow(/U\+0000 nor a lone surrogate/);
    const recorded = evidence.decisions().filter((record) => record.toolKind === 'approver');
    const decided = await batches.isDecided(batchId, alice);
    await close();
    expect(got).toEqual([null, false, false, 'not_found', null, false, false, 'not_found']);
    expect({ recorded, decided }).toEqual({ recorded: [], decided: false });
  });

  it('control: the batch is read and decided by its id, by an approver id with an astral character', async () => {
    const { batches, propose, close } = await batchFixture(backend.store());
    const batchId = approvalBatchId({ conversation: 'c-1', message: unique('m') });
    const call = unique('call_');
    await propose(call, 1, { approvalBatch: batchId });
    const approver = { ...support, id: 'staff:😀' };
    expect(await batches.read(batchId, approver, alice)).toMatchObject({ allowed: true });
    expect(await batches.decide(batchId, [{ toolCallId: call, decision: 'approve' }], approver, alice)).toMatchObject({
      outcome: 'decided',
    });
    await close();
  });
});
