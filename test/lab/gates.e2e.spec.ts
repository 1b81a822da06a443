import { afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { LabModule } from '../../apps/storefront-lab/src/lab.module.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ app: INestApplication; dataSource: DataSource }> {
  const directory = await mkdtemp(join(tmpdir(), 'verdict-lab-gates-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const moduleRef = await Test.createTestingModule({ imports: [LabModule.forRoot({ database: join(directory, 'lab.sqlite') })] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  cleanups.push(() => app.close());
  return { app, dataSource: app.get(DataSource) };
}

describe('storefront lab: durable gates', () => {
  it('a permission is not a budget: three owned refreshes, two executed, the third throttled', async () => {
    const { app, dataSource } = await setup();
    const { body } = await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'executed', 'throttle']);
    expect(body.carrierRequests).toBe(2);
    expect(JSON.parse(body.calls[2].modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'shipments.refresh',
      decision: 'throttle',
      message: 'I cannot do that for you.',
    });
    const throttles = await dataSource.getRepository(DecisionRecordEntity).findBy({ capability: 'shipments.refresh', disposition: 'throttle' });
    expect(throttles).toHaveLength(1);
    expect(throttles[0]).toMatchObject({ stage: 'rate_limit', rateLimitLimit: 2, rateLimitRemaining: 0 });
  });

  it('keeps the budget spent for the rest of the window', async () => {
    const { app } = await setup();
    await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    const { body } = await request(app.getHttpServer()).get('/api/labs/budget').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['throttle', 'throttle', 'throttle']);
    expect(body.carrierRequests).toBe(0);
  });

  it('a new tool-call id is not a new operation: two transport ids, one execution, one ticket', async () => {
    const { app, dataSource } = await setup();
    const { body } = await request(app.getHttpServer()).get('/api/labs/duplicate-delivery').expect(200);
    expect(body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(['executed', 'deny']);
    expect(body.ticketsForOrder).toBe(1);
    const claims = await dataSource.getRepository(DecisionRecordEntity).findBy({ capability: 'support.escalate', stage: 'execution_claim' });
    expect(claims.map((r) => [r.disposition, r.claimStatus, r.claimAttempt])).toEqual(
      expect.arrayContaining([
        ['permit', 'claimed', 1],
        ['deny', 'completed', 1],
      ]),
    );
  });
});
