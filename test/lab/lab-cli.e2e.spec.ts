import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { runNodeScript } from '@verdict/testing-kit';
import { createLabServer } from '../../apps/storefront-lab/src/server/lab-server.js';
import { CUSTOMER_72, labCli } from './lab-app.fixture.js';

const CLI = labCli();

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function temporary(prefix: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** A lab server whose sessions are files in `sessions` (as `npm start` runs it), or in memory. */
async function labServer(sessions?: string) {
  const webRoot = await temporary('verdict-lab-web-');
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>lab</title>');
  const app = await createLabServer({ webRoot, sessionsDirectory: sessions, env: {} });
  await app.init();
  cleanups.push(() => app.close());
  return request.agent(app.getHttpServer());
}

/** The lab CLI in its own process, in `cwd`, with `LAB_DATABASE` when given. */
const cli = (cwd: string, database: string | undefined, ...args: string[]) => {
  const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: 'production' };
  delete env.LAB_DATABASE;
  if (database !== undefined) env.LAB_DATABASE = database;
  return runNodeScript(CLI, args, { cwd, env });
};

describe('storefront lab: the operator CLI sees what the page shows', () => {
  it("lists the claim the page shows, from the session's own database named by the page's command", async () => {
    const sessions = await temporary('verdict-lab-sessions-');
    const agent = await labServer(sessions);
    await agent.post('/api/labs/claims/labels').send({ actor: CUSTOMER_72, orderId: 1002 }).expect(200);
    const { body: claims } = await agent.get('/api/claims').expect(200);
    const { body: session } = await agent.get('/api/session').expect(200);
    expect(session.cli.database.startsWith(sessions)).toBe(true);
    expect(session.cli.command).toMatch(/^LAB_DATABASE=\S+\.sqlite npm run verdict -- claims list$/);

    const listed = await cli(process.cwd(), session.cli.database, 'claims', 'list');
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(claims).toEqual([expect.objectContaining({ status: 'indeterminate' })]);
    expect(listed.stdout).toContain(claims[0].id);
    expect(listed.stdout).toContain('indeterminate');
  });

  it('refuses a mistyped LAB_DATABASE instead of creating and "verifying" an empty database', async () => {
    const directory = await temporary('verdict-lab-cli-');
    const typo = join(directory, 'storefrnt.sqlite');
    for (const command of [
      ['claims', 'list'],
      ['evidence', 'verify'],
    ]) {
      const { code, stdout, stderr } = await cli(process.cwd(), typo, ...command);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toContain(`LAB_DATABASE names ${typo}, which does not exist`);
    }
    expect(existsSync(typo)).toBe(false);
  });

  it('without LAB_DATABASE and without a session, says to start the lab; validate needs no database', async () => {
    const cwd = await temporary('verdict-lab-cwd-');
    const none = await cli(cwd, undefined, 'claims', 'list');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No lab session database in');
    expect(existsSync(join(cwd, '.lab-data'))).toBe(false);
    const validate = await cli(cwd, undefined, 'validate', '--json');
    expect(validate.code).toBe(0);
    expect(JSON.parse(validate.stdout)).toMatchObject({ findings: [] });
  });

  it('deletes a session database when the session is reset or the server closes; an in-memory lab offers no CLI command', async () => {
    const sessions = await temporary('verdict-lab-sessions-');
    const agent = await labServer(sessions);
    const { body: session } = await agent.get('/api/session').expect(200);
    expect(existsSync(session.cli.database)).toBe(true);
    await agent.post('/api/session/reset').expect(200);
    expect(existsSync(session.cli.database)).toBe(false);

    // Closing the server closes every session and deletes its database.
    const closing = await temporary('verdict-lab-sessions-');
    const webRoot = await temporary('verdict-lab-web-');
    await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>lab</title>');
    const app = await createLabServer({ webRoot, sessionsDirectory: closing, env: {} });
    await app.init();
    const open = (await request(app.getHttpServer()).get('/api/session').expect(200)).body.cli.database;
    expect(existsSync(open)).toBe(true);
    await app.close();
    expect(existsSync(open)).toBe(false);

    const inMemory = await labServer();
    expect((await inMemory.get('/api/session').expect(200)).body.cli).toBeNull();
  });
});
