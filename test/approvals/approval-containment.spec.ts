import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  CapabilityDenied,
  ContainmentService,
  InMemoryApprovalReceiptStore,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  VerdictService,
  fingerprintString,
} from '@verdict/nestjs';
import { type Actor, alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

/** Support staff of alice's tenant, approving on her conversation. */
const support: ActionContext = { actor: { id: 'support' }, tenant: 'acme' };

async function setup() {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, archived)],
    evidence,
    approvals: new InMemoryApprovalReceiptStore(),
    actorKey: (actor: Actor) => actor.id,
    containment: { store: new InMemoryContainmentStore(), cacheTtlMs: 0 },
    imports: [EventEmitterModule.forRoot()],
  });
  const denied: CapabilityDenied[] = [];
  moduleRef.get(EventEmitter2).on(CapabilityDenied.event, (event: CapabilityDenied) => denied.push(event));
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const containment = moduleRef.get(ContainmentService);
  const propose = (id: number, toolCallId: string, explicitApproval = false) =>
    contexts.run(alice, () =>
      verdict.execute({ capability: 'documents.archive', arguments: { id }, toolCallId }, { explicitApproval }),
    );
  /** alice proposes; answers her pending challenge. */
  const challenge = async (id: number, toolCallId: string) => {
    expect((await propose(id, toolCallId)).decision.disposition).toBe('require_confirmation');
    return (await approvals.challengeForToolCall(toolCallId, alice))!;
  };
  const contain = (scope: 'capability' | 'actor' | 'tenant', subject: string) =>
    containment.engage({ scope, subject, reason: 'INC-2', by: 'operator:1' });
  const release = (scope: 'capability' | 'actor' | 'tenant', subject: string) =>
    containment.release({ scope, subject, reason: 'INC-2 closed', by: 'operator:1' });
  return { approvals, archived, evidence, denied, propose, challenge, contain, release };
}

describe('kill switches and approvals', () => {
  it('a contained approver neither approves nor rejects; recorded and raised; released, the approval executes once (control)', async () => {
    const { approvals, archived, evidence, denied, propose, challenge, contain, release } = await setup();
    const { receiptId, toolCallId } = await challenge(1, 'call_1');
    await contain('actor', 'support');
    const parties = { approver: support, requester: alice };
    expect(await approvals.approve(receiptId, toolCallId, 'staff:support', parties)).toEqual({ outcome: 'contained' });
    expect(await approvals.reject(receiptId, toolCallId, 'staff:support', parties)).toEqual({ outcome: 'contained' });
    expect((await propose(1, toolCallId, true)).executed).toBe(false);
    expect(evidence.decisions().filter((record) => record.approvalOutcome === 'contained')).toEqual([
      expect.objectContaining({
        stage: 'containment',
        disposition: 'deny',
        toolKind: 'approver',
        receiptFingerprint: fingerprintString(receiptId),
      }),
      expect.objectContaining({ stage: 'containment', toolKind: 'approver' }),
    ]);
    expect(denied.filter((event) => event.actorFingerprint === fingerprintString('support'))).toHaveLength(2);
    expect(JSON.stringify(evidence.decisions())).not.toContain(receiptId);

    await release('actor', 'support');
    expect(await approvals.approve(receiptId, toolCallId, 'staff:support', parties)).toMatchObject({
      outcome: 'approved',
    });
    expect((await propose(1, toolCallId, true)).executed).toBe(true);
    expect(archived).toHaveLength(1);
  });

  for (const [label, scope, subject] of [
    ['capability', 'capability', 'documents.archive'],
    ['tenant', 'tenant', 'acme'],
    ['requester', 'actor', 'alice'],
  ] as const) {
    it(`an approval for a contained ${label} does not proceed; rejecting still closes the receipt; another approval works once released (control)`, async () => {
      const { approvals, challenge, contain, release, evidence } = await setup();
      const first = await challenge(1, 'call_1');
      const second = await challenge(1, 'call_2');
      await contain(scope, subject);
      const parties = { approver: support, requester: alice };
      expect(await approvals.approve(first.receiptId, first.toolCallId, 'staff:support', parties)).toEqual({
        outcome: 'contained',
      });
      expect(evidence.decisions().find((record) => record.approvalOutcome === 'contained')).toMatchObject({
        stage: 'containment',
        capability: 'documents.archive',
      });
      expect(await approvals.reject(first.receiptId, first.toolCallId, 'staff:support', parties)).toMatchObject({
        outcome: 'rejected',
      });
      await release(scope, subject);
      expect(await approvals.approve(second.receiptId, second.toolCallId, 'staff:support', parties)).toMatchObject({
        outcome: 'approved',
      });
    });
  }

  it('without parties, the capability switch still refuses the approval', async () => {
    const { approvals, challenge, contain } = await setup();
    const { receiptId, toolCallId } = await challenge(1, 'call_1');
    await contain('capability', 'documents.archive');
    expect(await approvals.approve(receiptId, toolCallId, 'customer:alice')).toEqual({ outcome: 'contained' });
  });
});
