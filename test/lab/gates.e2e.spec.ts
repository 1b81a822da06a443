import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

describe('storefront lab: durable gates', () => {
  it('a permission is not a budget: three owned refreshes, two executed, the third throttled', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'executed', 'throttle']);
    expect(body.carrierRequests).toBe(2);
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
    const { app } = await bootLab();
    await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    const { body } = await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['throttle', 'throttle', 'throttle']);
    expect(body.carrierRequests).toBe(0);
  });

  it('a new tool-call id is not a new operation: two transport ids, one execution, one ticket', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/duplicate-delivery').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'deny']);
    expect(body.ticketsForOrder).toBe(1);
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
