import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

describe('storefront lab: forbidden states', () => {
  it('refuses the external upload and the outside link, admits the tenant-internal workflow, and shows the folded state', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/forbidden-states/runs')
      .send({ actor: CUSTOMER_72, externalHost: 'files.example.net', recipient: 'collector@example.net' })
      .expect(200);
    expect(body.map((step: { call: { outcome: string } }) => step.call.outcome)).toEqual([
      'executed',
      'executed',
      'deny',
      'executed',
      'deny',
    ]);
    expect(body[2].call.stages.at(-1).reason).toContain('customer_records_exfiltrated');
    expect(body[3].state).toMatchObject({ records_in_tenant_storage: true, external_copies: 0 });
    expect(body[4].state).toEqual(body[3].state);
    // Each call is credited with what it shared, and only that: the refused link shares nothing.
    expect(body.map((step: { call: { sideEffect: string } }) => step.call.sideEffect)).toEqual([
      'nothing shared',
      'nothing shared',
      'nothing shared',
      'shared: internal:files.acme.example',
      'nothing shared',
    ]);
  });
});
