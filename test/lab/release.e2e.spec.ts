import { describe, expect, it } from '@jest/globals';
import { fingerprint } from '@verdict/nestjs';
import { ReleaseRecordEntity } from '@verdict/nestjs/typeorm';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

describe('storefront lab: destination-bound release', () => {
  it("releases customer 72's projection to ollama@local-machine with the e-mail redacted and nothing else", async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/release/runs')
      .send({ actor: CUSTOMER_72 })
      .expect(200);
    const [local] = body.releases;
    expect(local).toMatchObject({ destination: 'ollama@local-machine', outcome: 'permitted', reason: 'released' });
    expect(local.payload).toEqual({
      display_name: 'Synthetic Customer 72',
      email: '[REDACTED]',
      orders: [
        { id: 1002, status: 'placed' },
        { id: 1004, status: 'shipped' },
      ],
    });
  });

  it('denies the same provider name in a remote trust zone: empty payload, route_not_registered', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/release/runs')
      .send({ actor: CUSTOMER_72 })
      .expect(200);
    const [, remote] = body.releases;
    expect(remote).toMatchObject({
      destination: 'ollama@remote-endpoint',
      outcome: 'denied',
      reason: 'route_not_registered',
    });
    expect(remote.payload).toEqual({});
  });

  it('shows the profile as the application holds it beside the payload, and marks the redacted path', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/release/runs')
      .send({ actor: CUSTOMER_72 })
      .expect(200);
    const [local, remote] = body.releases;
    expect(local.before).toMatchObject({ email: 'customer72@acme.example' });
    expect(local.redactedPaths).toEqual(['email']);
    expect(remote.redactedPaths).toEqual([]);
  });

  it('stores one record per release with the route in clear and no profile value', async () => {
    const { app, dataSource } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/release/runs')
      .send({ actor: CUSTOMER_72 })
      .expect(200);
    const [local, remote] = body.releases;
    const rows = await dataSource.getRepository(ReleaseRecordEntity).find();
    expect(rows.map((row) => row.id).sort()).toEqual([local.evidence.id, remote.evidence.id].sort());
    const byZone = Object.fromEntries(rows.map((row) => [row.destinationTrustZone, row]));
    expect(byZone['local-machine']).toMatchObject({
      destinationConnection: 'ollama',
      sourceName: 'customer-profile',
      disposition: 'permit',
      reason: 'released',
    });
    expect(byZone['remote-endpoint']).toMatchObject({
      destinationConnection: 'ollama',
      disposition: 'deny',
      reason: 'route_not_registered',
    });
    // The payload is stored only as a fingerprint: of the released payload, and of {} for the denial.
    expect(byZone['local-machine'].payloadFingerprint).toBe(fingerprint(local.payload));
    expect(byZone['remote-endpoint'].payloadFingerprint).toBe(fingerprint({}));
    expect(byZone['local-machine'].transformationCount).toBe(1);
    const stored = JSON.stringify(rows).toLowerCase();
    for (const value of [
      'customer72@acme.example',
      'acme.example',
      'synthetic customer 72',
      '[redacted]',
      'shipped',
      'placed',
    ])
      expect(stored).not.toContain(value);
    // What the endpoint reports as evidence is the stored row itself.
    expect(JSON.parse(JSON.stringify(byZone['local-machine']))).toEqual(local.evidence);
  });
});
