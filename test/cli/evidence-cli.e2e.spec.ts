import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import {
  ActionContextStore,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  VerdictService,
  actorFingerprint,
  fingerprintString,
} from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, streamDecision, testingKitFixture } from '@verdict/testing-kit';
import { JOBS_RUN, jobsAppModule } from '../../libs/testing/src/fixtures/jobs-app.module.js';
import { inProcessJobsCli } from './captured-cli.js';
import { inProcessCli } from './in-process-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const RAW_TOOL_CALL_IDS = ['call_nightly_Zq81', 'call_again_Lm0X', 'call_weekly_9VvY'];

/**
 * A SQLite file with the evidence of three `jobs.run` proposals made in this process: alice runs the nightly
 * export (permitted), then again (a duplicate, denied at the execution claim); bob runs the weekly one.
 */
async function setup() {
  const dataSource = await openDataSource(
    { name: 'sqlite' },
    { entities: verdictEntities, migrations: verdictMigrations },
  );
  cleanups.push(() => dropDataSource(dataSource));
  const database = dataSource.options.database as string;
  const app = await NestFactory.createApplicationContext(
    jobsAppModule(database, async () => 'ran'),
    { logger: false },
  );
  cleanups.push(() => app.close());
  const [alice, bob] = [
    { actor: { id: 'alice' }, tenant: 'acme' },
    { actor: { id: 'bob' }, tenant: 'acme' },
  ];
  const propose = (context: typeof alice, job: string, toolCallId: string) =>
    app
      .get(ActionContextStore)
      .run(context, () => app.get(VerdictService).execute({ capability: JOBS_RUN, arguments: { job }, toolCallId }));
  const runs = [
    await propose(alice, 'nightly-export', RAW_TOOL_CALL_IDS[0]),
    await propose(alice, 'nightly-export', RAW_TOOL_CALL_IDS[1]),
    await propose(bob, 'weekly-export', RAW_TOOL_CALL_IDS[2]),
  ];
  const script = testingKitFixture('jobs-cli.js');
  /** The operator CLI (the compiled `jobs-cli.js`) in its own process. */
  const spawnedCli = (...args: string[]) => runNodeScript(script, [database, ...args]);
  /** The same CLI in this process, answering as `spawnedCli` does. */
  const cli = inProcessJobsCli(database);
  // The jobs app names actors by the module's actorKey, `worker:<id>`: the fingerprint the records carry.
  const workerKey = (actor: { id: string }) => `worker:${actor.id}`;
  return { spawnedCli, cli, runs, alice: actorFingerprint(alice, workerKey), bob: actorFingerprint(bob, workerKey) };
}

describe('operator CLI: evidence', () => {
  it('lists records newest first, filtered by actor, disposition, stage and tool call, with no raw value', async () => {
    const { spawnedCli, cli, runs, alice, bob } = await setup();
    expect(runs.map((run) => [run.executed, run.decision.disposition, run.decision.stage])).toEqual([
      [true, 'permit', 'execution'],
      [false, 'deny', 'execution_claim'],
      [true, 'permit', 'execution'],
    ]);

    // End to end: the compiled CLI in its own process; the other cases in this one.
    const all = await spawnedCli('evidence', 'list', '--json');
    expect(all.code).toBe(0);
    const records = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    expect(records[0]).toMatchObject({ correlationId: runs[2].correlationId, actorFingerprint: bob });
    expect(new Set(records.map((record) => record.correlationId))).toEqual(
      new Set(runs.map((run) => run.correlationId)),
    );
    for (const raw of [...RAW_TOOL_CALL_IDS, 'nightly-export', 'weekly-export', '"alice"', '"bob"'])
      expect(all.stdout).not.toContain(raw);

    const denied = JSON.parse(
      (await cli('evidence', 'list', '--actor', alice, '--disposition', 'deny', '--json')).stdout,
    );
    expect(denied).toEqual([
      expect.objectContaining({
        correlationId: runs[1].correlationId,
        stage: 'execution_claim',
        disposition: 'deny',
        toolCallFingerprint: fingerprintString(RAW_TOOL_CALL_IDS[1]),
      }),
    ]);
    const byCall = JSON.parse(
      (
        await cli(
          'evidence',
          'list',
          '--tool-call',
          fingerprintString(RAW_TOOL_CALL_IDS[2]),
          '--stage',
          'execution',
          '--json',
        )
      ).stdout,
    );
    expect(byCall).toEqual([expect.objectContaining({ correlationId: runs[2].correlationId, actorFingerprint: bob })]);

    const text = await cli('evidence', 'list', '--capability', JOBS_RUN, '--since', '2000-01-01', '--limit', '2');
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(
      /^recorded_at\s+correlation_id\s+seq\s+capability\s+tool_kind\s+stage\s+disposition$/,
    );
    expect(text.stdout.trim().split('\n')).toHaveLength(4);
    expect(text.stdout).toContain(runs[2].correlationId);
  });

  it('shows one run as a stage timeline', async () => {
    const { spawnedCli, cli, runs, alice } = await setup();
    const shown = await spawnedCli('evidence', 'show', runs[1].correlationId);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toBe(`run ${runs[1].correlationId}: jobs.run (service), deny at execution_claim`);
    expect(lines[2]).toContain(`actor ${alice}`);
    expect(lines[2]).toContain(`tool call ${fingerprintString(RAW_TOOL_CALL_IDS[1])}`);
    const timeline = lines.slice(6).map((line) => line.split(/\s+/).slice(0, 4));
    expect(timeline).toEqual([
      ['0', expect.stringMatching(/^\+\d+ms$/), 'proposal', 'permit'],
      ['1', expect.stringMatching(/^\+\d+ms$/), 'target_refresh', 'permit'],
      ['2', expect.stringMatching(/^\+\d+ms$/), 'execution', 'permit'],
      ['3', expect.stringMatching(/^\+\d+ms$/), 'execution_claim', 'deny'],
    ]);
    expect(lines.at(-1)).toMatch(/claim=/);

    const json = JSON.parse((await cli('evidence', 'show', runs[1].correlationId, '--json')).stdout);
    expect(json.records.map((record: { sequence: number; stage: string }) => [record.sequence, record.stage])).toEqual([
      [0, 'proposal'],
      [1, 'target_refresh'],
      [2, 'execution'],
      [3, 'execution_claim'],
    ]);
  });

  it('refuses a filter it cannot answer with exit 2, and a run it does not know with exit 1', async () => {
    const { cli } = await setup();
    const rawId = await cli('evidence', 'list', '--tool-call', RAW_TOOL_CALL_IDS[0]);
    expect(rawId.code).toBe(2);
    expect(rawId.stderr).toContain('toolCallFingerprint must be a SHA-256 fingerprint');
    const badDate = await cli('evidence', 'list', '--since', 'yesterday', '--json');
    expect(badDate.code).toBe(2);
    expect(JSON.parse(badDate.stderr)).toEqual({ error: expect.stringContaining('--since must be an ISO 8601') });
    const badDisposition = await cli('evidence', 'list', '--disposition', 'allow');
    expect(badDisposition.code).toBe(2);
    const unknown = await cli('evidence', 'show', '00000000-0000-0000-0000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no evidence for correlation id');
  });
});

/**
 * Three decision records one second apart in memory, and `cli`: `verdict <argv>` run in this process over them,
 * with the query's `list` spied on, so a test can tell whether anything was read.
 */
async function inMemoryEvidence() {
  const recorder = new InMemoryEvidenceRecorder();
  await recorder.recordDecisions(
    [0, 1, 2].map((second) =>
      streamDecision('tenant:acme', `refund ${second}`, new Date(Date.UTC(2026, 0, 1, 0, 0, second))),
    ),
  );
  const evidenceQuery = new InMemoryEvidenceQuery(recorder);
  const list = jest.spyOn(evidenceQuery, 'list');
  const cli = (...argv: string[]) => inProcessCli({ evidence: recorder, evidenceQuery }, ...argv);
  return { recorder, list, cli };
}

describe('operator CLI: evidence list --limit', () => {
  it.each(['1e2', '0x10', '', ' 5', '5.0', '2.5', '-5', '0', '02'])(
    'refuses --limit %j with exit 2, naming the flag, and reads nothing',
    async (limit) => {
      const { cli, list } = await inMemoryEvidence();
      const refused = await cli('evidence', 'list', '--limit', limit, '--json');
      expect(refused).toMatchObject({ code: 2, stdout: '' });
      expect(JSON.parse(refused.stderr)).toEqual({
        error: `--limit must be a positive integer in decimal digits (e.g. 100), not "${limit}"`,
      });
      expect(list).not.toHaveBeenCalled();
    },
  );

  it('refuses a --limit no number holds exactly, naming the flag', async () => {
    const { cli, list } = await inMemoryEvidence();
    const limit = `${Number.MAX_SAFE_INTEGER}0`;
    const refused = await cli('evidence', 'list', '--limit', limit);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(`--limit must be at most`) });
    expect(list).not.toHaveBeenCalled();
  });

  it('lists --limit 2 records, the newest (control)', async () => {
    const { cli, list, recorder } = await inMemoryEvidence();
    const listed = await cli('evidence', 'list', '--limit', '2', '--json');
    expect(listed.code).toBe(0);
    const newest = [...recorder.decisions()]
      .sort((a, b) => b.recordedAt.getTime() - a.recordedAt.getTime())
      .slice(0, 2)
      .map((record) => record.id);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((record) => record.id)).toEqual(newest);
    expect(list).toHaveBeenCalledWith(expect.objectContaining({ limit: 2 }));
  });
});

describe('operator CLI: evidence list --after', () => {
  it('pages: a full page names the next on stderr, and --after lists it', async () => {
    const { cli, recorder } = await inMemoryEvidence();
    const newestFirst = [...recorder.decisions()]
      .sort((a, b) => b.recordedAt.getTime() - a.recordedAt.getTime())
      .map((record) => record.id);

    const first = await cli('evidence', 'list', '--limit', '2', '--json');
    expect(first.code).toBe(0);
    const { nextPage } = JSON.parse(first.stderr) as { nextPage: { after: string } };
    const second = await cli('evidence', 'list', '--limit', '2', '--after', nextPage.after, '--json');
    expect(second).toMatchObject({ code: 0, stderr: '' });
    const listed = [first, second].flatMap((page) =>
      (JSON.parse(page.stdout) as Array<{ id: string }>).map((r) => r.id),
    );
    expect(listed).toEqual(newestFirst);

    const text = await cli('evidence', 'list', '--limit', '2');
    expect(text.stderr).toBe(`next page: --after ${nextPage.after}`);
  });

  it('refuses a cursor no list printed with exit 2', async () => {
    const { cli, recorder } = await inMemoryEvidence();
    const refused = await cli('evidence', 'list', '--after', recorder.decisions()[0]!.id);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('after must be a cursor') });
  });
});
