import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const propose = (amountCents = 25_000) => ({ actor: CUSTOMER_72, orderId: 1002, amountCents });

async function parked() {
  const { app } = await bootLab();
  const server = app.getHttpServer();
  const { body: call } = await request(server).post('/api/labs/review-lane/proposals').send(propose()).expect(200);
  const { body: items } = await request(server).get('/api/reviews').expect(200);
  const decide = (verb: 'approve' | 'reject', reviewer: string) =>
    request(server).post(`/api/reviews/${items[0].itemId}/${verb}`).set('x-lab-reviewer', reviewer);
  return { server, call, items, decide };
}

describe('storefront lab: review lane (a refund above the threshold waits for staff)', () => {
  it('parks the refund with require_review; a staff member approves and the worker refunds once', async () => {
    const { call, items, decide } = await parked();
    expect(call.outcome).toBe('require_review');
    expect(call.sideEffect).toBe('no refund yet: parked until staff decide');
    expect(items).toEqual([
      expect.objectContaining({ status: 'pending', description: 'Refund 25000 cents on order 1002', decidedBy: null }),
    ]);
    const { body } = await decide('approve', 'staff:ana').expect(200);
    expect(body.outcome).toBe('approved');
    expect(body.item).toMatchObject({ status: 'executed', decidedBy: 'staff:ana' });
    expect(body.item.history.map((record: { phase: string }) => record.phase)).toEqual(
      expect.arrayContaining(['review_park', 'review_decision', 'review_execution']),
    );
    expect(body.sideEffect).toBe('refunded 25000 cents on order 1002');
    // The refund is credited to the call the item was parked from.
    expect(body.item.toolCallId).toBe(call.toolCallId);
    // Deciding again changes nothing: the item is settled, the refund was made once and is not credited again.
    const again = await decide('approve', 'staff:ana').expect(200);
    expect(again.body.outcome).toBe('invalid_state');
    expect(again.body.sideEffect).toBe('no refund made');
  });

  it('a rejection never runs', async () => {
    const { decide } = await parked();
    const { body } = await decide('reject', 'staff:ana').expect(200);
    expect(body).toMatchObject({
      outcome: 'rejected',
      item: { status: 'rejected' },
      sideEffect: 'no refund made',
    });
  });

  it("credits the worker's refund to the reviewed call, never to the next proposal", async () => {
    const { server, decide } = await parked();
    await decide('approve', 'staff:ana').expect(200);
    const { body: next } = await request(server)
      .post('/api/labs/review-lane/proposals')
      .send(propose(30_000))
      .expect(200);
    expect(next.sideEffect).toBe('no refund yet: parked until staff decide');
  });

  it('the guard refuses the requester, a customer without review rights, another tenant’s staff and nobody', async () => {
    const { decide, server } = await parked();
    const why = async (reviewer: string, status: number) => (await decide('approve', reviewer).expect(status)).body;
    expect((await why('customer:72', 403)).refusal).toEqual({
      endpoint: 'review',
      status: 403,
      who: 'Customer 72 at acme (the requester)',
      why: 'They asked for this refund: nobody reviews their own request.',
    });
    expect((await why('customer:91', 403)).refusal.why).toContain("Only staff of the order's tenant");
    const otherTenant = await why('staff:gus', 404);
    expect(otherTenant.message).toBe('There is no such review item in your tenant.');
    expect(otherTenant.refusal.why).toContain("No review item of that id is in this person's tenant");
    expect((await why('nobody', 401)).refusal).toMatchObject({ status: 401, who: 'nobody' });
    const { body: items } = await request(server).get('/api/reviews').expect(200);
    expect(items[0].status).toBe('pending');
  });

  it('an item id that exists nowhere is refused with 404, in words that do not claim another tenant holds it', async () => {
    const { server } = await parked();
    const { body } = await request(server)
      .post('/api/reviews/rvw_doesnotexist/approve')
      .set('x-lab-reviewer', 'staff:ana')
      .expect(404);
    expect(body.refusal).toEqual({
      endpoint: 'review',
      status: 404,
      who: expect.stringContaining('Ana'),
      why: "No review item of that id is in this person's tenant: it may not exist, or belong to another tenant. The endpoint answers 404 either way and gives nothing away.",
    });
    expect(body.refusal.why).not.toContain('belongs to another tenant');
    const { body: items } = await request(server).get('/api/reviews').expect(200);
    expect(items[0].status).toBe('pending');
  });

  it('utility control: a refund at or below the threshold is not this lane’s, and bad input runs nothing', async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    const { body } = await request(server).post('/api/labs/review-lane/proposals').send(propose(500)).expect(200);
    expect(body.outcome).toBe('deny');
    expect(body.stages).toEqual([expect.objectContaining({ stage: 'proposal', disposition: 'deny' })]);
    await request(server)
      .post('/api/labs/review-lane/proposals')
      .send({ ...propose(), orderId: 'x' })
      .expect(400);
    expect((await request(server).get('/api/reviews').expect(200)).body).toEqual([]);
  });
});
