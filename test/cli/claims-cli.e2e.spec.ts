import { afterEach, describe, expect, it } from '@jest/globals';
import { ActionContextStore, VerdictService, windowStartOf } from '@verdict/nestjs';
import {
  DecisionRecordEntity,
  ExecutionClaimEntity,
  RateLimitWindowEntity,
  BudgetWindowEntity,
  TypeOrmBudgetStore,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, testingKitFixture } from '@verdict/testing-kit';
import { NestFactory } from '@nestjs/core';
import { fork } from 'node:child_process';
import { userInfo } from 'node:os';
import type { DataSource } from 'typeorm';
import { JOBS_RUN, jobsAppModule } from '../../libs/testing/src/fixtures/jobs-app.module.js';
import { inProcessJobsCli } from './captured-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const dataSource = await openDataSource(
    { name: 'sqlite' },
    { entities: verdictEntities, migrations: verdictMigrations },
  );
  cleanups.push(() => dropDataSource(dataSource));
  const database = dataSource.options.database as string;
  /** Runs a compiled operator CLI in its own process; resolves with its exit code and output. */
  const spawned =
    (entry: string) =>
    (...args: string[]) =>
      runNodeScript(testingKitFixture(entry), [database, ...args]);
  /** The operator CLI (`jobs-cli.js`) in its own process. */
  const spawnedCli = spawned('jobs-cli.js');
  /** The same CLI in this process, answering as `spawnedCli` does. */
  const cli = inProcessJobsCli(database);
  /** The CLI with an operator-identity hook of its own (`sso:8812`), in its own process. */
  const cliWithOperatorIdentity = spawned('jobs-cli-with-operator-identity.js');
  /**
   * The CLI whose operator-identity hook returns `JSON.parse(identityJson)`, or undefined without it, as
   * `jobs-cli-with-operator-identity-from-env.js`.
   */
  const cliWithHookReturning = (identityJson?: string) =>
    inProcessJobsCli(database, () => (identityJson === undefined ? undefined : JSON.parse(identityJson)) as string);
  return { dataSource, database, spawnedCli, cli, cliWithOperatorIdentity, cliWithHookReturning };
}

/**
 * Two windows of two hours, each starting on the hour: one that ended over an hour ago, and the current one, which
 * ends at least an hour from now. The CLI prunes in its own process with its own clock: a current window of one hour
 * could end between this process's reading of the clock and the CLI's, and be pruned too.
 */
function twoHourWindows(): { ended: Date; current: Date; windowSeconds: number } {
  const hour = 3600;
  const now = Date.now();
  return {
    ended: windowStartOf(new Date(now - 3 * hour * 1000), hour),
    current: windowStartOf(new Date(now), hour),
    windowSeconds: 2 * hour,
  };
}

/** Starts a process that enters the `jobs.run` executor for `job`, and SIGKILLs it there. */
async function killInsideExecutor(database: string, job: string): Promise<void> {
  const child = fork(testingKitFixture('hanging-executor.js'), [database, job], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', (message) => (message === 'entered' ? resolve() : reject(new Error(String(message)))));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before entering the executor`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Leaves the claim of `job` as `killInsideExecutor` does, in this process: an application enters the `jobs.run`
 * executor for it and never comes back (the executor hangs until the test ends). For the tests whose subject is what
 * the CLI does with such a claim; the first test proves a SIGKILLed process leaves it so.
 */
async function hangInsideExecutor(database: string, job: string): Promise<void> {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const app = await NestFactory.createApplicationContext(
    jobsAppModule(database, () => {
      entered();
      return new Promise(() => undefined);
    }),
    { logger: false },
  );
  cleanups.push(() => app.close());
  void app
    .get(ActionContextStore)
    .run({ actor: { id: 'worker' }, tenant: null }, () =>
      app.get(VerdictService).execute({ capability: JOBS_RUN, arguments: { job } }),
    );
  await inside;
}

const claimsOf = (dataSource: DataSource) => dataSource.getRepository(ExecutionClaimEntity).find();

describe('operator CLI: execution claims', () => {
  it('finds the claim a SIGKILLed executor left claimed, and resolves it only with --force', async () => {
    // End to end: the compiled CLI in its own process, on the claim a SIGKILLed process left.
    const { dataSource, database, spawnedCli: cli } = await setup();
    await killInsideExecutor(database, 'nightly-export');
    const [stuck] = await claimsOf(dataSource);
    expect(stuck).toMatchObject({ status: 'claimed', attempt: 1, capability: 'jobs.run' });

    const listed = await cli('claims', 'list', '--json');
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout);
    expect(rows).toEqual([
      expect.objectContaining({
        id: stuck.id,
        capability: 'jobs.run',
        policy: 'run-job',
        status: 'claimed',
        attempt: 1,
      }),
    ]);
    expect(listed.stdout).not.toContain(stuck.bindingFingerprint);

    const refused = await cli(
      'claims',
      'resolve',
      stuck.id,
      'completed',
      '--by',
      'operator:7',
      '--reason',
      'export file found on the bucket',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--force');
    expect((await claimsOf(dataSource))[0].status).toBe('claimed');

    const resolved = await cli(
      'claims',
      'resolve',
      stuck.id,
      'completed',
      '--by',
      'operator:7',
      '--reason',
      'export file found on the bucket',
      '--force',
      '--json',
    );
    expect(resolved.code).toBe(0);
    // Who ran the command is recorded next to --by: the OS user, by default.
    const operatorIdentity = `os:${userInfo().username}`;
    expect(JSON.parse(resolved.stdout)).toEqual({
      id: stuck.id,
      from: 'claimed',
      status: 'completed',
      attempt: 1,
      by: 'operator:7',
      operatorIdentity,
    });
    expect(await claimsOf(dataSource)).toEqual([
      expect.objectContaining({ resolvedBy: 'operator:7', operatorIdentity }),
    ]);
    expect(JSON.parse((await cli('claims', 'list', '--json')).stdout)).toEqual([]);

    const evidence = await dataSource.getRepository(DecisionRecordEntity).findBy({ toolKind: 'operator' });
    expect(evidence).toEqual([
      expect.objectContaining({
        capability: 'jobs.run',
        stage: 'execution_claim',
        claimStatus: 'completed',
        claimFingerprint: stuck.bindingFingerprint,
      }),
    ]);
    expect(evidence[0].reason).toContain('operator:7');
    expect(evidence[0].reason).toContain(operatorIdentity);
  });

  it("records the application's operator-identity hook instead of the OS user", async () => {
    const { dataSource, database, cliWithOperatorIdentity } = await setup();
    await hangInsideExecutor(database, 'quarterly-close');
    const [stuck] = await claimsOf(dataSource);
    const resolved = await cliWithOperatorIdentity(
      'claims',
      'resolve',
      stuck.id,
      'retryable',
      '--by',
      'operator:7',
      '--reason',
      'the job never ran',
      '--force',
    );
    expect(resolved.stdout.trim()).toBe(`claim ${stuck.id}: claimed -> released (by operator:7, run by sso:8812)`);
    expect(await claimsOf(dataSource)).toEqual([
      expect.objectContaining({ status: 'released', resolvedBy: 'operator:7', operatorIdentity: 'sso:8812' }),
    ]);
    const [record] = await dataSource.getRepository(DecisionRecordEntity).findBy({ toolKind: 'operator' });
    expect(record.reason).toBe(
      'operator "operator:7" (run by "sso:8812") resolved claimed as retryable: the job never ran',
    );
  });

  it.each([
    ['an empty string', '""'],
    ['undefined', undefined],
    ['256 characters', JSON.stringify(`sso:${'x'.repeat(252)}`)],
  ])(
    'refuses to resolve when the operator-identity hook returns %s, before anything changes',
    async (_, identityJson) => {
      const { dataSource, database, cliWithHookReturning } = await setup();
      await hangInsideExecutor(database, 'monthly-invoices');
      const [stuck] = await claimsOf(dataSource);
      const refused = await cliWithHookReturning(identityJson)(
        'claims',
        'resolve',
        stuck.id,
        'retryable',
        '--by',
        'operator:7',
        '--reason',
        'x',
        '--force',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/operator identity/);
      expect(await claimsOf(dataSource)).toEqual([
        expect.objectContaining({ status: 'claimed', resolvedBy: null, operatorIdentity: null }),
      ]);
      expect(await dataSource.getRepository(DecisionRecordEntity).findBy({ toolKind: 'operator' })).toEqual([]);
    },
  );

  it('resolves when the same hook names someone (control)', async () => {
    const { dataSource, database, cliWithHookReturning } = await setup();
    await hangInsideExecutor(database, 'monthly-invoices');
    const [stuck] = await claimsOf(dataSource);
    const resolved = await cliWithHookReturning('"sso:8812"')(
      'claims',
      'resolve',
      stuck.id,
      'retryable',
      '--by',
      'operator:7',
      '--reason',
      'x',
      '--force',
    );
    expect(resolved.code).toBe(0);
    expect(await claimsOf(dataSource)).toEqual([
      expect.objectContaining({ status: 'released', resolvedBy: 'operator:7', operatorIdentity: 'sso:8812' }),
    ]);
  });

  it('prints a table for people', async () => {
    const { database, cli } = await setup();
    await hangInsideExecutor(database, 'weekly-report');
    const listed = await cli('claims', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(
      /^id\s+capability\s+policy\s+status\s+attempt\s+claimed_at\s+updated_at$/,
    );
    expect(listed.stdout).toContain('jobs.run');
  });

  it.each([
    [['claims', 'resolve', 'some-id', 'completed', '--reason', 'x'], 2, '--by'],
    [['claims', 'resolve', 'some-id', 'completed', '--by', '  ', '--reason', 'x'], 2, '--by'],
    [['claims', 'resolve', 'some-id', 'completed', '--by', 'operator:7', '--reason', ' '], 2, '--reason'],
    [['claims', 'resolve', 'some-id', 'maybe', '--by', 'operator:7', '--reason', 'x'], 2, 'completed or retryable'],
    [
      ['claims', 'resolve', 'no-such-claim', 'retryable', '--by', 'operator:7', '--reason', 'x'],
      1,
      'no execution claim',
    ],
  ])('exits non-zero on %j', async (args, code, message) => {
    const { cli } = await setup();
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });

  it('names itself verdict in its help, and exits 0', async () => {
    const { cli, spawnedCli } = await setup();
    const help = await spawnedCli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: verdict \[options\] \[command\]/);
    expect(help.stdout).toMatch(/claims\s+Inspect and resolve execution claims/);
    expect((await cli('claims', 'resolve', '--help')).stdout).toMatch(
      /^Usage: verdict claims resolve \[options\] <id> <resolution>/,
    );
  });

  it.each([
    [['bogus'], "unknown command 'bogus'"],
    [['claims', 'bogus'], "unknown command 'bogus'"],
    [['claims', 'list', '--bogus'], "unknown option '--bogus'"],
    [['claims', 'resolve', 'some-id'], "missing required argument 'resolution'"],
    [['claims'], 'Usage: verdict claims [options] [command]'],
  ])('says what is wrong with %j on stderr and exits 2 (usage error), touching nothing', async (args, message) => {
    const { cli, dataSource } = await setup();
    const result = await cli(...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
    expect(await claimsOf(dataSource)).toEqual([]);
  });

  it('prunes rate-limit windows that have ended, and only those', async () => {
    const { spawnedCli: cli, dataSource } = await setup();
    const store = new TypeOrmRateLimitStore(dataSource);
    const { ended, current, windowSeconds } = twoHourWindows();
    for (const windowStart of [ended, current])
      await store.consume({ bucketFingerprint: 'a'.repeat(64), windowStart, windowSeconds, limit: 5 });
    const pruned = await cli('rate-limits', 'prune', '--json');
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout)).toEqual({ pruned: 1 });
    const left = await dataSource.getRepository(RateLimitWindowEntity).find();
    expect(left.map((window) => window.windowStart.getTime())).toEqual([current.getTime()]);
  });

  it('prunes budget windows that have ended, and only those', async () => {
    const { spawnedCli: cli, dataSource } = await setup();
    const store = new TypeOrmBudgetStore(dataSource);
    const { ended, current, windowSeconds } = twoHourWindows();
    for (const windowStart of [ended, current])
      await store.reserve({ bucketFingerprint: 'b'.repeat(64), windowStart, windowSeconds, limit: 5, amount: 2 });
    const pruned = await cli('budgets', 'prune', '--json');
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout)).toEqual({ pruned: 1 });
    const left = await dataSource.getRepository(BudgetWindowEntity).find();
    expect(left.map((window) => window.windowStart.getTime())).toEqual([current.getTime()]);
  });
});
