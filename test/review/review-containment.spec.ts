import { describe, expect, it } from '@jest/globals';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  CapabilityDenied,
  ContainmentService,
  type ContainmentScope,
  InMemoryContainmentStore,
  fingerprintString,
  reviewItemFingerprint,
} from '@verdict/nestjs';
import type { RefundActor } from '@verdict/testing-kit';
import { bootReviewLane } from './review-lane.fixture.js';

async function setup(moduleActorKey?: (actor: RefundActor) => string) {
  const lane = await bootReviewLane({
    containment: { store: new InMemoryContainmentStore(), cacheTtlMs: 0 },
    moduleActorKey,
  });
  const denied: CapabilityDenied[] = [];
  lane.moduleRef.get(EventEmitter2).on(CapabilityDenied.event, (event: CapabilityDenied) => denied.push(event));
  const containment = lane.moduleRef.get(ContainmentService);
  const contain = (scope: ContainmentScope, subject: string) =>
    containment.engage({ scope, subject, reason: 'INC-1', by: 'operator:1' });
  const release = (scope: ContainmentScope, subject: string) =>
    containment.release({ scope, subject, reason: 'INC-1 closed', by: 'operator:1' });
  return { ...lane, denied, contain, release };
}

describe('kill switches and the reviewer queue', () => {
  it('a contained reviewer neither approves nor rejects; recorded at stage containment and raised; another reviewer approves (control)', async () => {
    const { reviews, queue, refunds, evidence, denied, propose, reviewer, contain, statusOf } = await setup();
    const itemId = await propose();
    await contain('actor', 'staff:7');
    expect(await reviews.approve(itemId, reviewer('staff:7'))).toEqual({ outcome: 'contained', itemId });
    expect(await reviews.reject(itemId, reviewer('staff:7'))).toEqual({ outcome: 'contained', itemId });
    await queue.idle();
    expect(await statusOf(itemId)).toBe('pending');
    const refusals = evidence.decisions().filter((record) => record.approvalOutcome === 'contained');
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatchObject({
      stage: 'containment',
      disposition: 'deny',
      toolKind: 'reviewer',
      approvalPhase: 'review_decision',
      receiptFingerprint: reviewItemFingerprint(itemId),
    });
    expect(denied.map((event) => [event.stage, event.actorFingerprint])).toEqual([
      ['containment', fingerprintString('staff:7')],
      ['containment', fingerprintString('staff:7')],
    ]);
    expect(JSON.stringify(evidence.decisions())).not.toContain(itemId);

    expect(await reviews.approve(itemId, reviewer('staff:8'))).toMatchObject({ outcome: 'approved' });
    await queue.idle();
    expect(refunds).toHaveLength(1);
  });

  for (const [label, scope, subject] of [
    ['capability', 'capability', 'orders.refund'],
    ['tenant', 'tenant', 'acme'],
    ['requester', 'actor', 'customer:72'],
  ] as const) {
    it(`an approval of an item whose ${label} is contained does not proceed; rejecting it still closes it; released, approval works (control)`, async () => {
      const { reviews, queue, refunds, evidence, propose, reviewer, contain, release, statusOf } = await setup();
      const first = await propose('call_1');
      const second = await propose('call_2');
      await contain(scope, subject);
      expect(await reviews.approve(first, reviewer('staff:7'))).toEqual({ outcome: 'contained', itemId: first });
      await queue.idle();
      expect(await statusOf(first)).toBe('pending');
      expect(refunds).toHaveLength(0);
      expect(evidence.decisions().find((record) => record.approvalOutcome === 'contained')).toMatchObject({
        stage: 'containment',
        disposition: 'deny',
        capability: 'orders.refund',
      });
      // Rejecting is the safe direction: staff can still close what must not run.
      expect(await reviews.reject(first, reviewer('staff:7'))).toMatchObject({ outcome: 'rejected' });

      await release(scope, subject);
      expect(await reviews.approve(second, reviewer('staff:7'))).toMatchObject({ outcome: 'approved' });
      await queue.idle();
      expect(refunds).toHaveLength(1);
    });
  }

  describe('when the capability keys the requester otherwise than the module', () => {
    // requiresReview's actorKey gives `customer:72`; the module's, which operators name actors by and step 0 of the
    // worker's run checks, gives `user:customer:72`.
    const moduleActorKey = (actor: RefundActor) => `user:${actor.id}`;

    it("an approval of a contained requester's item does not proceed: the requester is named by the module's actorKey", async () => {
      const { reviews, queue, refunds, evidence, denied, propose, reviewer, contain, statusOf } =
        await setup(moduleActorKey);
      const itemId = await propose();
      await contain('actor', 'user:customer:72');
      expect(await reviews.approve(itemId, reviewer('staff:7'))).toEqual({ outcome: 'contained', itemId });
      await queue.idle();
      expect(await statusOf(itemId)).toBe('pending');
      expect(refunds).toHaveLength(0);
      expect(evidence.decisions().filter((record) => record.approvalOutcome === 'contained')).toEqual([
        expect.objectContaining({ stage: 'containment', disposition: 'deny', toolKind: 'reviewer' }),
      ]);
      expect(evidence.decisions().some((record) => record.approvalOutcome === 'authorized')).toBe(false);
      expect(denied.map((event) => event.actorFingerprint)).toEqual([fingerprintString('user:staff:7')]);
    });

    it("control: an uncontained requester's item is approved and runs while another actor is contained", async () => {
      const { reviews, queue, refunds, propose, reviewer, contain, statusOf } = await setup(moduleActorKey);
      const itemId = await propose();
      await contain('actor', 'user:customer:73');
      expect(await reviews.approve(itemId, reviewer('staff:7'))).toEqual({ outcome: 'approved', itemId });
      await queue.idle();
      expect(refunds).toHaveLength(1);
      expect(await statusOf(itemId)).toBe('executed');
    });

    it("a switch named by the capability's key refuses the approval too: an operator who named the requester either way stops it", async () => {
      const { reviews, queue, refunds, propose, reviewer, contain, statusOf } = await setup(moduleActorKey);
      const itemId = await propose();
      await contain('actor', 'customer:72');
      expect(await reviews.approve(itemId, reviewer('staff:7'))).toEqual({ outcome: 'contained', itemId });
      await queue.idle();
      expect(refunds).toHaveLength(0);
      expect(await statusOf(itemId)).toBe('pending');
      // Rejecting it still closes it (control): a requester's switch never holds a rejection.
      expect(await reviews.reject(itemId, reviewer('staff:7'))).toEqual({ outcome: 'rejected', itemId });
      expect(await statusOf(itemId)).toBe('rejected');
    });
  });
});
