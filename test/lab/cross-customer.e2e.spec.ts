import { describe, expect, it } from '@jest/globals';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import { fingerprint, fingerprintString } from '@verdict/nestjs';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

describe('storefront lab: cross-customer comparison', () => {
  it('shows the naive tool leaking 1001 while the manual and Verdict tools deny it', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/cross-customer').expect(200);
    const [foreign] = body.cases;
    expect(foreign.proposal.args).toEqual({ orderId: 1001 });
    expect(foreign.orderOwner).toBe(91);
    expect([foreign.naive.outcome, foreign.manual.outcome, foreign.verdict.outcome]).toEqual([
      'leaked',
      'denied',
      'denied',
    ]);
    expect(JSON.parse(foreign.naive.modelSaw)).toMatchObject({ id: 1001 });
    expect(JSON.parse(foreign.verdict.modelSaw)).toEqual({
      status: 'not_executed',
      capability: 'orders.view',
      decision: 'deny',
      message: 'I cannot do that for you.',
    });
  });

  it('permits the owned order 1002 on both secured paths', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/cross-customer').expect(200);
    const [, owned] = body.cases;
    expect([owned.naive.outcome, owned.manual.outcome, owned.verdict.outcome]).toEqual([
      'permitted',
      'permitted',
      'permitted',
    ]);
    expect(JSON.parse(owned.verdict.modelSaw)).toMatchObject({ id: 1002, status: 'placed' });
  });

  it('records the Verdict denial as evidence in the SQLite store, without raw values', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer()).get('/api/labs/cross-customer').expect(200);
    expect(body.cases[0].verdict.evidence).toEqual([
      expect.objectContaining({
        stage: 'proposal',
        disposition: 'deny',
        reason: 'view Order denied: no rule permits it',
      }),
    ]);
    const rows = await dataSource
      .getRepository(DecisionRecordEntity)
      .findBy({ toolCallFingerprint: fingerprintString('call_xc_1001') });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain('call_xc_1001');
    expect(
      Object.values(rows[0]).filter((value) => value === 1001 || value === '1001' || value === 'call_xc_1001'),
    ).toEqual([]);
    expect(rows[0].argumentsFingerprint).toBe(fingerprint({ orderId: 1001 }));
  });

  it('serves a page that runs the comparison', async () => {
    const { app } = await bootLab();
    const page = await request(app.getHttpServer())
      .get('/')
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(page.text).toContain('id="run-cross-customer"');
    expect(page.text).toContain('/api/labs/cross-customer');
  });
});
