import { describe, expect, it } from '@jest/globals';
import { Order } from '@verdict/storefront';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

const stagesOf = (call: { stages: { stage: string; disposition: string }[] }) =>
  call.stages.map((s) => `${s.stage}:${s.disposition}`);

describe('storefront lab: why Verdict, not a scoped query', () => {
  it('a second tool the developer forgot to scope: the hand-written cancel cancels 91’s order, the bound one is denied', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer()).post('/api/labs/why-verdict/forgotten-tool/runs').expect(200);
    const [manual, verdict] = body.paths;
    expect([manual.safe, verdict.safe]).toEqual([false, true]);
    expect(manual.call.sideEffect).toBe('order 1001: cancelled, owned by customer 91');
    expect(verdict.call.sideEffect).toBe('order 1001: placed, owned by customer 91');
    expect(stagesOf(verdict.call)).toEqual(['proposal:deny']);
    // Each path starts from the seed, and the seed is back afterwards.
    expect((await dataSource.getRepository(Order).findOneByOrFail({ id: 1001 })).status).toBe('placed');
  });

  it('the resource swapped between check and execution: the hand-secured tool cancels it, Verdict re-authorizes and denies', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer()).post('/api/labs/why-verdict/swapped-resource/runs').expect(200);
    const [manual, verdict] = body.paths;
    expect(manual.call.sideEffect).toBe('order 1002: cancelled, owned by customer 91');
    expect(verdict.call.sideEffect).toBe('order 1002: placed, owned by customer 91');
    expect(stagesOf(verdict.call)).toEqual(['proposal:permit', 'target_refresh:permit', 'execution:deny']);
    expect([manual.safe, verdict.safe]).toEqual([false, true]);
  });

  it('an approval replayed: the hand-rolled token refunds twice, the Verdict receipt once', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/why-verdict/replayed-approval/runs')
      .expect(200);
    const [manual, verdict] = body.paths;
    expect(manual.outcome).toBe('refunded 2 times');
    expect(verdict.outcome).toBe('deny (refunded 1 time)');
    expect(verdict.call.stages.at(-1)).toMatchObject({ stage: 'approval', disposition: 'deny' });
  });

  it('answers 400 to a case that does not exist', async () => {
    const { app } = await bootLab();
    await request(app.getHttpServer()).post('/api/labs/why-verdict/no-such-case/runs').expect(400);
  });
});
