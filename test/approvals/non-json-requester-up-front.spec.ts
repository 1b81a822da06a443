import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  type ApprovalBatchItemDecision,
  Destination,
  InMemoryApprovalReceiptStore,
  NonCanonicalValueError,
  approvalBatchId,
} from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';

/**
 * docs/approvals.md "Who asked is always bound": a requester whose actor is not plain JSON (under the actor key a
 * receipt binds: here none is set, so the actor itself) gets `NonCanonicalValueError` from every lookup, checked
 * before the store is read. It used to answer "nothing pending" while no receipt of the id was pending, and throw as
 * soon as anyone's was: through the approval guard a 409 or a 500, telling whether someone had a pending call with
 * that id.
 */
describe('a requester whose actor is not plain JSON', () => {
  let fixture: Awaited<ReturnType<typeof batchFixture>>;
  let batchId: string;
  const mallory: ActionContext = {
    actor: { id: 'mallory', signedInAt: new Date('2026-03-01T08:00:00.000Z') },
    tenant: 'acme',
    metadata: { conversationId: 'c-9' },
  };
  const decideAll: ApprovalBatchItemDecision[] = [{ toolCallId: 'shared', decision: 'approve' }];
  const approvalUi = { destination: Destination.connection('approval-ui', 'staff') };
  beforeAll(async () => {
    fixture = await batchFixture(new InMemoryApprovalReceiptStore());
    batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
  });
  afterAll(async () => fixture.close());

  /** Every lookup mallory can make of the tool-call id `shared` and alice's batch, each settled to its error. */
  const lookups = () =>
    Promise.all(
      [
        () => fixture.approvals.challengeForToolCall('shared', mallory),
        () => fixture.approvals.pending(['shared'], mallory),
        () => fixture.approvals.untrustedContent('rcpt_none', support, approvalUi, mallory),
        () => fixture.batches.pending(batchId, mallory),
        () => fixture.batches.read(batchId, support, mallory),
        () => fixture.batches.decide(batchId, decideAll, support, mallory),
      ].map((lookup) =>
        lookup().then(
          (value) => ({ value }),
          (error: Error) => ({ error: error.constructor.name, path: /\$\.actor\.signedInAt/.test(error.message) }),
        ),
      ),
    );

  it("attack: every lookup throws NonCanonicalValueError alike, with and without another actor's pending receipt", async () => {
    const thrown = { error: NonCanonicalValueError.name, path: true };
    const before = await lookups();
    expect(before).toEqual(Array(6).fill(thrown));
    // alice's receipt under the same tool-call id, in her batch: another principal and conversation.
    expect(await fixture.propose('shared', 1, { approvalBatch: batchId })).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    expect(await lookups()).toEqual(before);
    expect(fixture.evidence.decisions().filter((record) => record.toolKind === 'approver')).toEqual([]);
  });

  it('control: a JSON actor still gets its own pending receipt, and another JSON actor nothing', async () => {
    const batch = approvalBatchId({ conversation: 'c-1', message: 'turn-2' });
    expect(await fixture.propose('mine', 2, { approvalBatch: batch })).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    expect(await fixture.approvals.challengeForToolCall('mine', alice)).toMatchObject({ toolCallId: 'mine' });
    expect(await fixture.approvals.pending(['mine'], alice)).toEqual([expect.objectContaining({ toolCallId: 'mine' })]);
    expect(await fixture.batches.pending(batch, alice)).toMatchObject({ batchId: batch });
    const bob = { ...mallory, actor: { id: 'bob' } };
    expect(await fixture.approvals.challengeForToolCall('mine', bob)).toBeNull();
    expect(await fixture.batches.pending(batch, bob)).toBeNull();
  });
});

describe('a requester whose actor is not plain JSON, with a module actorKey', () => {
  it('control: the key is what must be JSON: the actor finds its pending receipt, whatever else it holds', async () => {
    const fixture = await batchFixture(new InMemoryApprovalReceiptStore(), {
      actorKey: (actor: { id: string }) => actor.id,
    });
    expect(await fixture.propose('call_1', 1)).toMatchObject({ decision: { disposition: 'require_confirmation' } });
    const signedIn = { ...alice, actor: { id: 'alice', signedInAt: new Date('2026-03-01T08:00:00.000Z') } };
    expect(await fixture.approvals.challengeForToolCall('call_1', signedIn)).toMatchObject({ toolCallId: 'call_1' });
    expect(await fixture.approvals.challengeForToolCall('call_none', signedIn)).toBeNull();
    await fixture.close();
  });
});
