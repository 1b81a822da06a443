import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import { fingerprint } from '@verdict/nestjs';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const run = (server: unknown, body: object) =>
  request(server as never)
    .post('/api/labs/cross-customer/runs')
    .send({ actor: CUSTOMER_72, request: 'Show me order 1001', orderId: 1001, ...body });

const outcomes = (body: { paths: { outcome: string }[] }) => body.paths.map((path) => path.outcome);

describe('storefront lab: cross-customer comparison', () => {
  it('shows the naive tool leaking 1001 while the manual and Verdict tools deny it', async () => {
    const { app } = await bootLab();
    const { body } = await run(app.getHttpServer(), {}).expect(200);
    expect(body.title).toContain('owned by 91 at acme');
    expect(outcomes(body)).toEqual(['leaked', 'denied', 'denied']);
    const [naive, , verdict] = body.paths;
    expect(naive.safe).toBe(false);
    expect(JSON.parse(naive.call.modelSaw)).toMatchObject({ id: 1001 });
    expect(naive.call.stages).toEqual([]);
    expect(JSON.parse(verdict.call.modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'orders.view',
      decision: 'deny',
      message: 'I cannot do that for you.',
    });
    expect(verdict.call.untrustedInput).toBe('Show me order 1001');
  });

  it('permits the owned order 1002 on every path, with the full stage timeline on the Verdict path', async () => {
    const { app } = await bootLab();
    const { body } = await run(app.getHttpServer(), { orderId: 1002 }).expect(200);
    expect(outcomes(body)).toEqual(['permitted', 'permitted', 'permitted']);
    const verdict = body.paths[2].call;
    expect(verdict.stages.map((s: { stage: string; disposition: string }) => `${s.stage}:${s.disposition}`)).toEqual([
      'proposal:permit',
      'target_refresh:permit',
      'execution:permit',
    ]);
    expect(JSON.parse(verdict.modelSaw)).toMatchObject({ id: 1002, status: 'placed' });
  });

  it('runs as the chosen actor: 72 claiming globex gets nothing through Verdict, while the naive tool still leaks', async () => {
    const { app } = await bootLab();
    const { body } = await run(app.getHttpServer(), { actor: { customerId: 72, tenant: 'globex' }, orderId: 1002 });
    expect(outcomes(body)).toEqual(['leaked', 'denied', 'denied']);
  });

  it('records the Verdict denial as evidence without raw values, and shows the stage as it was stored', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await run(app.getHttpServer(), {}).expect(200);
    const [stage] = body.paths[2].call.stages;
    expect(stage).toMatchObject({
      stage: 'proposal',
      disposition: 'deny',
      reason: 'view Order denied: no rule permits it',
    });
    const rows = await dataSource.getRepository(DecisionRecordEntity).findBy({ capability: 'orders.view' });
    expect(rows).toHaveLength(1);
    expect(rows[0].argumentsFingerprint).toBe(fingerprint({ orderId: 1001 }));
    expect(stage.evidence.argumentsFingerprint).toBe(rows[0].argumentsFingerprint);
    expect(JSON.stringify(rows)).not.toContain(body.paths[2].call.toolCallId);
  });

  it('answers 400 to an actor that is not a seeded customer, and runs nothing', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await run(app.getHttpServer(), { actor: { customerId: 5, tenant: 'acme' } }).expect(400);
    expect(body.message).toEqual(['actor.customerId: Invalid input']);
    expect(await dataSource.getRepository(DecisionRecordEntity).count()).toBe(0);
  });
});
