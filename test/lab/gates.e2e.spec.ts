import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

describe('storefront lab: durable gates', () => {
  it('a permission is not a budget: three owned refreshes, two executed, the third throttled', async () => {
    // One instant for the whole test: the refreshes' hourly window cannot roll over between them.
    const now = new Date();
    const { app, dataSource } = await bootLab({ clock: () => now });
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/budget/runs')
      .send({ actor: CUSTOMER_72, orderId: 1002, count: 3 })
      .expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'executed', 'throttle']);
    expect(body.summary).toContain('2 carrier request(s)');
    expect(JSON.parse(body.calls[2].modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'shipments.refresh',
      decision: 'throttle',
      message: 'I cannot do that for you.',
    });
    const throttles = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ capability: 'shipments.refresh', disposition: 'throttle' });
    expect(throttles).toHaveLength(1);
    expect(throttles[0]).toMatchObject({ stage: 'rate_limit', rateLimitLimit: 2, rateLimitRemaining: 0 });
  });

  it('keeps the budget spent for the rest of the window', async () => {
    // One instant for the whole test: the refreshes' hourly window cannot roll over between them.
    const now = new Date();
    const { app } = await bootLab({ clock: () => now });
    await request(app.getHttpServer())
      .post('/api/labs/budget/runs')
      .send({ actor: CUSTOMER_72, orderId: 1002, count: 3 })
      .expect(200);
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/budget/runs')
      .send({ actor: CUSTOMER_72, orderId: 1002, count: 3 })
      .expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['throttle', 'throttle', 'throttle']);
    expect(body.summary).toContain('0 carrier request(s)');
  });

  it('a new tool-call id is not a new operation: two transport ids, one execution, one ticket', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/duplicate-delivery/runs')
      .send({ actor: CUSTOMER_72, orderId: 1002 })
      .expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'deny']);
    expect(body.summary).toBe('Support tickets for order 1002: 1');
    const claims = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ capability: 'support.escalate', stage: 'execution_claim' });
    expect(claims.map((r) => [r.disposition, r.claimStatus, r.claimAttempt])).toEqual(
      expect.arrayContaining([
        ['permit', 'claimed', 1],
        ['deny', 'completed', 1],
      ]),
    );
  });
});
