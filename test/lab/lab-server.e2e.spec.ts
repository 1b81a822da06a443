import { afterEach, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createLabServer } from '../../apps/storefront-lab/src/server/lab-server.js';
import { CUSTOMER_72 } from './lab-app.fixture.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(maxSessions?: number): Promise<NestExpressApplication> {
  const webRoot = await mkdtemp(join(tmpdir(), 'verdict-lab-web-'));
  cleanups.push(() => rm(webRoot, { recursive: true, force: true }));
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>lab</title>');
  // One instant for the whole test: the refreshes' hourly window cannot roll over between two budget runs.
  const now = new Date();
  const app = await createLabServer({ webRoot, maxSessions, clock: () => now });
  await app.init();
  cleanups.push(() => app.close());
  return app;
}

const budgetRun = { actor: CUSTOMER_72, orderId: 1002, count: 3 };

const budget = (agent: ReturnType<typeof request.agent>) =>
  agent
    .post('/api/labs/budget/runs')
    .send({ actor: CUSTOMER_72, orderId: 1002, count: 3 })
    .expect(200)
    .then(({ body }) => body.calls.map((call: { outcome: string }) => call.outcome));

describe('storefront lab server', () => {
  it('serves the web app and gives each browser a session cookie', async () => {
    const app = await server();
    await request(app.getHttpServer())
      .get('/')
      .expect(200)
      .expect('content-type', /text\/html/);
    const { headers } = await request(app.getHttpServer()).get('/api/session').expect(200);
    expect(String(headers['set-cookie'])).toMatch(
      /^verdict_lab_session=[0-9a-f-]{36}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
  });

  it("sets the cookie with the page, so the page's parallel first requests share one session", async () => {
    const app = await server();
    const page = await request(app.getHttpServer()).get('/').expect(200);
    const cookie = String(page.headers['set-cookie']).split(';')[0];
    expect(cookie).toMatch(/^verdict_lab_session=[0-9a-f-]{36}$/);
    const [spent, again] = await Promise.all([
      request(app.getHttpServer()).post('/api/labs/budget/runs').set('cookie', cookie).send(budgetRun),
      request(app.getHttpServer()).get('/api/session').set('cookie', cookie),
    ]);
    expect([spent.headers['set-cookie'], again.headers['set-cookie']]).toEqual([undefined, undefined]);
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/budget/runs')
      .set('cookie', cookie)
      .send(budgetRun)
      .expect(200);
    expect(body.calls.map((call: { outcome: string }) => call.outcome)).toEqual(['throttle', 'throttle', 'throttle']);
  });

  it('keeps state per browser session: one spends its budget, another starts fresh', async () => {
    const app = await server();
    const first = request.agent(app.getHttpServer());
    const second = request.agent(app.getHttpServer());
    expect(await budget(first)).toEqual(['executed', 'executed', 'throttle']);
    expect(await budget(first)).toEqual(['throttle', 'throttle', 'throttle']);
    expect(await budget(second)).toEqual(['executed', 'executed', 'throttle']);
  });

  it('resets only the session that asked, with a POST', async () => {
    const app = await server();
    const first = request.agent(app.getHttpServer());
    const second = request.agent(app.getHttpServer());
    await budget(first);
    await budget(second);
    await first.post('/api/session/reset').expect(200, { reset: true });
    expect(await budget(first)).toEqual(['executed', 'executed', 'throttle']);
    expect(await budget(second)).toEqual(['throttle', 'throttle', 'throttle']);
  });

  it('changes nothing on GET: reading the claims and the inbox twice gives the same answer', async () => {
    const app = await server();
    const agent = request.agent(app.getHttpServer());
    await agent.post('/api/labs/duplicate-delivery/runs').send({ actor: CUSTOMER_72, orderId: 1002 }).expect(200);
    const claims = (await agent.get('/api/claims').expect(200)).body;
    expect(claims.map((claim: { status: string }) => claim.status)).toEqual(['completed']);
    expect((await agent.get('/api/claims').expect(200)).body).toEqual(claims);
    expect((await agent.get('/api/approvals').expect(200)).body).toEqual([]);
    await agent.get('/api/labs/budget/runs').expect(404);
  });

  it('closes the least recently used session past the limit: it starts again from the seed', async () => {
    const app = await server(1);
    const first = request.agent(app.getHttpServer());
    const second = request.agent(app.getHttpServer());
    await budget(first);
    await budget(second);
    expect(await budget(first)).toEqual(['executed', 'executed', 'throttle']);
  });
});
