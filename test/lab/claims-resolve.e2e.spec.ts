import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';

const resolution = (choice: 'completed' | 'retryable', force = false) => ({
  resolution: choice,
  by: 'ops:ana',
  reason: 'checked the carrier portal',
  force,
});

async function timedOutLabel() {
  const { app } = await bootLab();
  const server = app.getHttpServer();
  const send = () => request(server).post('/api/labs/claims/labels').send({ actor: CUSTOMER_72, orderId: 1002 });
  const { body: first } = await send().expect(200);
  const { body: claims } = await request(server).get('/api/claims').expect(200);
  return { server, send, first, claims };
}

describe('storefront lab: the claims panel resolves claims as `verdict claims resolve` does', () => {
  it('a carrier timeout leaves the claim indeterminate and the retry denied until an operator resolves it', async () => {
    const { send, first, claims } = await timedOutLabel();
    expect(first).toMatchObject({ outcome: 'executor threw', sideEffect: expect.stringContaining('unknown') });
    expect(claims.map((claim: { status: string }) => claim.status)).toEqual(['indeterminate']);
    const { body: retry } = await send().expect(200);
    expect(retry.outcome).toBe('deny');
    expect(retry.stages.at(-1)).toMatchObject({ stage: 'execution_claim', disposition: 'deny' });
  });

  it('resolved retryable: the operation is admitted once more and books the label; resolving again is refused', async () => {
    const { server, send, claims } = await timedOutLabel();
    const { body } = await request(server)
      .post(`/api/claims/${claims[0].id}/resolve`)
      .send(resolution('retryable'))
      .expect(200);
    expect(body).toEqual({ outcome: 'resolved', from: 'indeterminate', status: 'released' });
    const { body: retry } = await send().expect(200);
    expect(retry).toMatchObject({ outcome: 'executed', sideEffect: 'labels booked for order 1002: 1' });
    const again = await request(server)
      .post(`/api/claims/${claims[0].id}/resolve`)
      .send(resolution('completed'))
      .expect(200);
    expect(again.body.outcome).toBe('invalid_state');
  });

  it('resolved completed: the effect happened, so the retry stays denied and books nothing', async () => {
    const { server, send, claims } = await timedOutLabel();
    await request(server).post(`/api/claims/${claims[0].id}/resolve`).send(resolution('completed')).expect(200);
    const { body: retry } = await send().expect(200);
    expect(retry).toMatchObject({ outcome: 'deny', sideEffect: 'labels booked for order 1002: 0' });
  });

  it('answers 400 without --by or --reason and 404 for a claim that does not exist, changing nothing', async () => {
    const { server, claims } = await timedOutLabel();
    await request(server)
      .post(`/api/claims/${claims[0].id}/resolve`)
      .send({ ...resolution('completed'), by: ' ' })
      .expect(400);
    const missing = await request(server).post('/api/claims/no-such-claim/resolve').send(resolution('completed'));
    // A fault of the request, not a refusal by a guarded endpoint: the page shows it as an error.
    expect(missing.status).toBe(404);
    expect(missing.body).not.toHaveProperty('refusal');
    const { body: after } = await request(server).get('/api/claims').expect(200);
    expect(after.map((claim: { status: string }) => claim.status)).toEqual(['indeterminate']);
  });
});
