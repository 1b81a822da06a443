import { describe, expect, it } from '@jest/globals';
import {
  type ApprovalBatchItemDecision,
  ContainmentService,
  InMemoryApprovalReceiptStore,
  InMemoryContainmentStore,
  approvalBatchId,
  fingerprintString,
} from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';

const decideAll = (ids: string[], decision: 'approve' | 'reject'): ApprovalBatchItemDecision[] =>
  ids.map((toolCallId) => ({ toolCallId, decision }));

/** Two confirming calls of one turn proposed by alice in one batch, with kill switches in memory. */
async function setup() {
  const fixture = await batchFixture(new InMemoryApprovalReceiptStore(), {
    actorKey: (actor: { id: string }) => actor.id,
    containment: { store: new InMemoryContainmentStore(), cacheTtlMs: 0 },
  });
  const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
  const ids = ['call_1', 'call_2'];
  for (const [index, id] of ids.entries())
    expect(await fixture.propose(id, index + 1, { approvalBatch: batchId })).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
  const containment = fixture.moduleRef.get(ContainmentService);
  const switchOnSupport = { scope: 'actor', subject: 'sam', reason: 'INC-7', by: 'operator:1' } as const;
  const runApproved = (index: number) =>
    fixture.propose(ids[index]!, index + 1, { explicitApproval: true, approvalBatch: batchId });
  return { ...fixture, batchId, ids, containment, switchOnSupport, runApproved };
}

describe('ApprovalBatchService.decide and kill switches', () => {
  it('a contained approver decides nothing: the refusal is recorded (stage containment, approvalOutcome contained) and raised as CapabilityDenied', async () => {
    const { batches, batchId, ids, containment, switchOnSupport, evidence, denied, runApproved, archived, close } =
      await setup();
    await containment.engage(switchOnSupport);
    const approver = fingerprintString('sam');

    for (const decision of ['approve', 'reject'] as const) {
      const before = { records: evidence.decisions().length, denied: denied.length };
      expect(await batches.decide(batchId, decideAll(ids, decision), support, alice)).toEqual({
        outcome: 'contained',
      });
      expect(evidence.decisions().slice(before.records)).toEqual([
        expect.objectContaining({
          stage: 'containment',
          disposition: 'deny',
          toolKind: 'approver',
          capability: 'documents.archive',
          approvalOutcome: 'contained',
          receiptFingerprint: expect.any(String),
        }),
      ]);
      expect(denied.slice(before.denied)).toEqual([
        expect.objectContaining({ stage: 'containment', capability: 'documents.archive', actorFingerprint: approver }),
      ]);
    }
    expect(await runApproved(0)).toMatchObject({ executed: false });
    expect(JSON.stringify(evidence.decisions())).not.toMatch(/call_1|call_2/);

    // Control: released, the same approver's batch approval is decided and its calls run.
    expect(await containment.release(switchOnSupport)).toBe(true);
    expect(await batches.decide(batchId, decideAll(ids, 'approve'), support, alice)).toMatchObject({
      outcome: 'decided',
    });
    for (const index of [0, 1]) expect(await runApproved(index)).toMatchObject({ executed: true });
    expect(archived).toEqual([1, 2]);
    await close();
  });
});
