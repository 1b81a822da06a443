import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const REFUNDS = [
  { orderId: 1002, amountCents: 500 },
  { orderId: 1004, amountCents: 300 },
  { orderId: 1002, amountCents: 200 },
];

async function proposeBatch() {
  const { app } = await bootLab();
  const server = app.getHttpServer();
  const proposed = await request(server)
    .post('/api/labs/batch-approval/proposals')
    .send({ actor: CUSTOMER_72, refunds: REFUNDS })
    .expect(200);
  const { batchId, calls } = proposed.body as {
    batchId: string;
    calls: Array<{ toolCallId: string; outcome: string; sideEffect: string }>;
  };
  const read = (approver: string, id = batchId) =>
    request(server).get(`/api/approvals/batches/${id}`).set('x-lab-approver', approver).expect(200);
  const decide = (decisions: unknown[], approver = 'customer:72', id = batchId) =>
    request(server).post(`/api/approvals/batches/${id}/decisions`).set('x-lab-approver', approver).send({ decisions });
  return { server, batchId, calls, read, decide, ids: calls.map((c) => c.toolCallId) };
}

describe('storefront lab: batch approvals', () => {
  it('shows the turn as one batch, runs the approved refund, refuses the rejected one and asks again for the edited one', async () => {
    const { calls, read, decide, ids } = await proposeBatch();
    expect(calls.map((c) => c.outcome)).toEqual([
      'require_confirmation',
      'require_confirmation',
      'require_confirmation',
    ]);
    const shown = await read('customer:72');
    expect(
      shown.body.items.map((i: { toolCallId: string; arguments: unknown }) => [i.toolCallId, i.arguments]),
    ).toEqual(ids.map((id, index) => [id, REFUNDS[index]]));

    const decided = await decide([
      { toolCallId: ids[0], decision: 'approve' },
      { toolCallId: ids[1], decision: 'reject' },
      { toolCallId: ids[2], decision: 'edit', arguments: { orderId: 1002, amountCents: 150 } },
    ]).expect(200);
    expect(decided.body.outcome).toBe('decided');
    expect(decided.body.calls.map((c: { outcome: string; sideEffect: string }) => [c.outcome, c.sideEffect])).toEqual([
      ['executed', 'resumed after the batch decision: refunded 500 cents on order 1002'],
      ['deny', 'resumed after the batch decision: no refund made'],
      ['require_confirmation', 'no refund yet: asked again in the next batch'],
    ]);
    const next = decided.body.nextBatchId as string;
    expect((await read('customer:72')).body).toEqual({ allowed: false, outcome: 'not_found' });
    const again = await read('customer:72', next);
    expect(again.body.items.map((i: { arguments: unknown }) => i.arguments)).toEqual([
      { orderId: 1002, amountCents: 150 },
    ]);
    const edited = await decide([{ toolCallId: ids[2], decision: 'approve' }], 'customer:72', next).expect(200);
    expect(
      edited.body.calls.map((c: { outcome: string; proposal: unknown; sideEffect: string }) => [
        c.outcome,
        c.proposal,
        c.sideEffect,
      ]),
    ).toEqual([
      [
        'executed',
        { tool: 'orders.refund', arguments: { orderId: 1002, amountCents: 150 } },
        'resumed after the batch decision: refunded 150 cents on order 1002',
      ],
    ]);
  });

  it('credits each call with what it caused: an edit the pipeline denies refunds nothing and asks no next batch', async () => {
    const { decide, read, ids, batchId } = await proposeBatch();
    const decided = await decide([
      { toolCallId: ids[0], decision: 'approve' },
      { toolCallId: ids[1], decision: 'reject' },
      // Order 1001 is customer 91's: the edit is a new proposal, and the pipeline denies it before anyone is asked.
      { toolCallId: ids[2], decision: 'edit', arguments: { orderId: 1001, amountCents: 5 } },
    ]).expect(200);
    expect(
      decided.body.calls.map((c: { toolCallId: string; outcome: string; sideEffect: string }) => [
        c.toolCallId,
        c.outcome,
        c.sideEffect,
      ]),
    ).toEqual([
      [ids[0], 'executed', 'resumed after the batch decision: refunded 500 cents on order 1002'],
      [ids[1], 'deny', 'resumed after the batch decision: no refund made'],
      [ids[2], 'deny', 'no refund made'],
    ]);
    expect(decided.body.nextBatchId).toBeNull();
    expect((await read('customer:72', batchId)).body).toEqual({ allowed: false, outcome: 'not_found' });
  });

  it('utility control: the turn says each refund was asked; an all-approve batch runs and credits each refund', async () => {
    const { calls, decide, ids } = await proposeBatch();
    expect(calls.map((c) => c.sideEffect)).toEqual(Array(3).fill('no refund yet: asked in the batch'));
    const decided = await decide(ids.map((toolCallId) => ({ toolCallId, decision: 'approve' }))).expect(200);
    expect(decided.body.nextBatchId).toBeNull();
    expect(decided.body.calls.map((c: { outcome: string; sideEffect: string }) => [c.outcome, c.sideEffect])).toEqual(
      REFUNDS.map(({ orderId, amountCents }) => [
        'executed',
        `resumed after the batch decision: refunded ${amountCents} cents on order ${orderId}`,
      ]),
    );
  });

  it('refuses another customer, a batch decided twice and an item that is not in the batch, changing nothing', async () => {
    const { read, decide, ids } = await proposeBatch();
    expect((await read('customer:91')).body).toEqual({ allowed: false, outcome: 'forbidden' });
    expect((await read('customer:73')).body).toEqual({ allowed: false, outcome: 'not_found' });
    const slipped = await decide([
      ...ids.map((toolCallId) => ({ toolCallId, decision: 'approve' })),
      { toolCallId: 'call_refund_99', decision: 'approve' },
    ]).expect(400);
    expect(slipped.body.problem).toBe('not_in_batch');
    expect((await read('customer:72')).body.items).toHaveLength(3);
    const rejectAll = ids.map((toolCallId) => ({ toolCallId, decision: 'reject' }));
    expect((await decide(rejectAll).expect(200)).body.outcome).toBe('decided');
    expect((await decide(rejectAll).expect(200)).body).toEqual({
      outcome: 'invalid_state',
      nextBatchId: null,
      calls: [],
    });
  });
});
