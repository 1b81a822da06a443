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
    // The guard's status stays; the lab adds which rule refused, so the page shows a refusal, not a fault.
    expect((await approve('customer:73').expect(403)).body.refusal).toEqual({
      endpoint: 'approval',
      status: 403,
      who: 'Customer 73 at globex (another tenant)',
      why: 'The refund was asked for at acme; an approver at globex cannot see that conversation, so cannot approve it.',
    });
    expect((await approve('customer:91').expect(403)).body.refusal).toMatchObject({
      who: 'Customer 91 at acme (another customer)',
      why: 'CASL lets a customer approve only their own orders: customer 72 asked for this refund, not customer 91.',
    });
    expect((await approve().expect(401)).body.refusal).toMatchObject({ status: 401, who: 'nobody' });
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

  it("counts only this lab's refunds: a refund made by another lab of the session is not shown here", async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    // The "why Verdict" replayed-approval case refunds once through Verdict, in the same session.
    await request(server).post('/api/labs/why-verdict/replayed-approval/runs').expect(200);
    const { body } = await request(server)
      .post('/api/labs/confirmation/proposals')
      .send({ actor: CUSTOMER_72, orderId: 1002, amountCents: 500 })
      .expect(200);
    expect(body.sideEffect).toBe('0 refund(s) made by this call; 0 in this lab');
    await request(server)
      .post(`/api/approvals/${body.toolCallId}/approve`)
      .set('x-lab-approver', 'customer:72')
      .expect(200);
    const resumed = await request(server)
      .post(`/api/labs/confirmation/proposals/${body.toolCallId}/resume`)
      .send({ orderId: 1002, amountCents: 500 })
      .expect(200);
    expect(resumed.body.sideEffect).toBe('1 refund(s) made by this call; 1 in this lab');
  });
});
