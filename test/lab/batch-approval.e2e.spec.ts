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
    calls: Array<{ toolCallId: string; outcome: string }>;
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
    expect(decided.body.calls.map((c: { outcome: string }) => c.outcome)).toEqual([
      'executed',
      'deny',
      'require_confirmation',
    ]);
    const next = decided.body.nextBatchId as string;
    expect((await read('customer:72')).body).toEqual({ allowed: false, outcome: 'not_found' });
    const again = await read('customer:72', next);
    expect(again.body.items.map((i: { arguments: unknown }) => i.arguments)).toEqual([
      { orderId: 1002, amountCents: 150 },
    ]);
    const edited = await decide([{ toolCallId: ids[2], decision: 'approve' }], 'customer:72', next).expect(200);
    expect(edited.body.calls.map((c: { outcome: string; proposal: unknown }) => [c.outcome, c.proposal])).toEqual([
      ['executed', { tool: 'orders.refund', arguments: { orderId: 1002, amountCents: 150 } }],
    ]);
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
