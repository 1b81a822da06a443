import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

describe('storefront lab: verified confirmation', () => {
  it('asks again for changed arguments, executes the exact approved refund once, and refuses its replay', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/confirmation').expect(200);
    expect(body.steps.map((s: { outcome: string }) => s.outcome)).toEqual([
      'require_confirmation',
      'approved',
      'require_confirmation',
      'executed',
      'deny',
    ]);
    expect(body.steps[1].step).toContain('Refund 500 cents on order 1002');
    expect(body.refundsMade).toBe(1);
    expect(JSON.parse(body.steps[0].modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'orders.refund',
      decision: 'require_confirmation',
      message: 'I cannot do that for you.',
    });
    const consumption = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ capability: 'orders.refund', approvalPhase: 'consumption' });
    expect(consumption.map((r) => r.approvalOutcome)).toEqual(['consumed']);
  });
});
