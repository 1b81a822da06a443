import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

describe('storefront lab: verified confirmation', () => {
  it('asks again for changed arguments, executes the exact approved refund once, and refuses its replay', async () => {
    const { app, dataSource } = await bootLab();
    const server = app.getHttpServer();
    const proposed = await request(server)
      .post('/api/labs/confirmation/proposals')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: 500 })
      .expect(200);
    expect(proposed.body.outcome).toBe('require_confirmation');
    expect(JSON.parse(proposed.body.modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'orders.refund',
      decision: 'require_confirmation',
      message: 'I cannot do that for you.',
    });
    const { toolCallId } = proposed.body;
    const inbox = await request(server).get('/api/approvals').expect(200);
    expect(inbox.body).toEqual([
      expect.objectContaining({ toolCallId, description: 'Refund 500 cents on order 1002' }),
    ]);
    await request(server)
      .post(`/api/approvals/${toolCallId}/approve`)
      .set('x-lab-approver', 'customer:72')
      .expect(200, { outcome: 'approved' });
    const resume = (amountCents: number) =>
      request(server)
        .post(`/api/labs/confirmation/proposals/${toolCallId}/resume`)
        .send({ orderId: 1002, amountCents })
        .expect(200);
    const outcomes = [];
    for (const amount of [50_000, 500, 500]) outcomes.push((await resume(amount)).body.outcome);
    expect(outcomes).toEqual(['require_confirmation', 'executed', 'deny']);
    const consumption = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ capability: 'orders.refund', approvalPhase: 'consumption' });
    expect(consumption.map((r) => r.approvalOutcome)).toEqual(['consumed']);
  });

  it('refuses an approver of another tenant, another customer and nobody, and approves nothing for them', async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    const { body } = await request(server)
      .post('/api/labs/confirmation/proposals')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: 500 })
      .expect(200);
    const approve = (approver?: string) => {
      const call = request(server).post(`/api/approvals/${body.toolCallId}/approve`);
      return approver === undefined ? call : call.set('x-lab-approver', approver);
    };
    await approve('customer:73').expect(403);
    await approve('customer:91').expect(403);
    await approve().expect(401);
    const inbox = await request(server).get('/api/approvals').expect(200);
    expect(inbox.body.map((pending: { toolCallId: string }) => pending.toolCallId)).toEqual([body.toolCallId]);
  });

  it('never executes a rejected refund', async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    const { body } = await request(server)
      .post('/api/labs/confirmation/proposals')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: 700 })
      .expect(200);
    await request(server)
      .post(`/api/approvals/${body.toolCallId}/reject`)
      .set('x-lab-approver', 'customer:72')
      .expect(200, { outcome: 'rejected' });
    const resumed = await request(server)
      .post(`/api/labs/confirmation/proposals/${body.toolCallId}/resume`)
      .send({ orderId: 1002, amountCents: 700 })
      .expect(200);
    expect(resumed.body.outcome).toBe('deny');
    expect(resumed.body.sideEffect).toContain('0 refund(s) made by this call');
  });
});
