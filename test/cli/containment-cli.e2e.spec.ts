import { afterEach, describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import { ActionContextStore, VerdictService, fingerprintString } from '@verdict/nestjs';
import {
  ContainmentEntity,
  DecisionRecordEntity,
  TypeOrmContainmentStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, testingKitFixture } from '@verdict/testing-kit';
import { userInfo } from 'node:os';
import { JOBS_RUN, jobsAppModule } from '../../libs/testing/src/fixtures/jobs-app.module.js';
import { inProcessJobsCli } from './captured-cli.js';

/** The compiled jobs CLI fixture; refuses a build older than the sources (StaleBuildError). */
const JOBS_CLI = testingKitFixture('jobs-cli.js');

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
  /** Runs the operator CLI (the compiled `jobs-cli.js`) in its own process; resolves with its exit code and output. */
  const spawnedCli = (...args: string[]) => runNodeScript(JOBS_CLI, [database, ...args]);
  /** The same CLI in this process, answering as `spawnedCli` does. */
  const cli = inProcessJobsCli(database);
  /**
   * The CLI whose operator-identity hook returns `JSON.parse(identityJson)`, or undefined without it, as
   * `jobs-cli-with-operator-identity-from-env.js`; in this process.
   */
  const cliWithHookReturning = (identityJson?: string) =>
    inProcessJobsCli(database, () => (identityJson === undefined ? undefined : JSON.parse(identityJson)) as string);
  // The application, in this process: every job it runs reads the switches the CLI process engages.
  const app = await NestFactory.createApplicationContext(
    jobsAppModule(database, async () => 'ran'),
    { logger: false },
  );
  cleanups.push(() => app.close());
  const runJob = async (job: string, actor = 'nightly') => {
    const result = await app
      .get(ActionContextStore)
      .run({ actor: { id: actor }, tenant: null }, () =>
        app.get(VerdictService).execute({ capability: JOBS_RUN, arguments: { job } }),
      );
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  const switches = () => dataSource.getRepository(ContainmentEntity).find();
  const containmentRecords = () => dataSource.getRepository(DecisionRecordEntity).findBy({ stage: 'containment' });
  return { dataSource, spawnedCli, cli, cliWithHookReturning, runJob, switches, containmentRecords };
}

const attribution = ['--by', 'operator:7', '--reason', 'INC-4411'];

describe('operator CLI: containment', () => {
  it('contains a capability from another process, lists it, and releases it; each step recorded as evidence', async () => {
    // End to end: contain, contain list and release in processes of their own (the compiled CLI); the repeats in this one.
    const { dataSource, spawnedCli, cli, runJob } = await setup();
    expect(await runJob('export-1')).toBe('executed');

    const contained = await spawnedCli('contain', 'capability', JOBS_RUN, ...attribution, '--json');
    expect(contained.code).toBe(0);
    expect(JSON.parse(contained.stdout)).toMatchObject({ scope: 'capability', engaged: true, subject: JOBS_RUN });
    expect(await runJob('export-2')).toBe('deny@containment');

    const again = await cli('contain', 'capability', JOBS_RUN, ...attribution);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already contained');
    expect(again.stdout).toContain('its engagement was recorded again'); // the same command: a repeat (ADR 0133)
    const another = await cli('contain', 'capability', JOBS_RUN, '--by', 'operator:8', '--reason', 'INC-4411');
    expect(another.code).toBe(0);
    expect(another.stdout).toContain('was already contained (by operator:7');
    expect(another.stdout).toContain('nothing changed');

    const listed = JSON.parse((await spawnedCli('contain', 'list', '--json')).stdout);
    const operatorIdentity = `os:${userInfo().username}`;
    expect(listed).toEqual([
      expect.objectContaining({
        scope: 'capability',
        subject: JOBS_RUN,
        engaged_by: 'operator:7',
        operator_identity: operatorIdentity,
        reason: 'INC-4411',
      }),
    ]);

    const released = await spawnedCli(
      'release',
      'capability',
      JOBS_RUN,
      '--by',
      'operator:7',
      '--reason',
      'INC-4411 fixed',
    );
    expect(released.code).toBe(0);
    expect(await runJob('export-3')).toBe('executed');
    const releasedAgain = await cli('release', 'capability', JOBS_RUN, ...attribution);
    expect(releasedAgain.code).toBe(1);
    expect(releasedAgain.stderr).toContain('no kill switch is engaged');

    const evidence = await dataSource.getRepository(DecisionRecordEntity).findBy({ stage: 'containment' });
    expect(
      evidence.map(({ toolKind, disposition, capability, reason }) => ({ toolKind, disposition, capability, reason })),
    ).toEqual(
      expect.arrayContaining([
        {
          toolKind: 'operator',
          disposition: 'deny',
          capability: JOBS_RUN,
          reason: `"operator:7" (run by ${JSON.stringify(operatorIdentity)}) engaged the capability kill switch for ${JOBS_RUN}: INC-4411`,
        },
        {
          toolKind: 'operator',
          disposition: 'permit',
          capability: JOBS_RUN,
          reason: `"operator:7" (run by ${JSON.stringify(operatorIdentity)}) released the capability kill switch for ${JOBS_RUN}: INC-4411 fixed`,
        },
        expect.objectContaining({ toolKind: 'service', disposition: 'deny', capability: JOBS_RUN }),
      ]),
    );
  });

  it('contains one actor by its key, stores only its fingerprint, and leaves other actors alone', async () => {
    const { dataSource, cli, runJob } = await setup();
    expect((await cli('contain', 'actor', 'worker:mallory', ...attribution)).code).toBe(0);
    expect([await runJob('a', 'mallory'), await runJob('b', 'nightly')]).toEqual(['deny@containment', 'executed']);
    const rows = await dataSource.getRepository(ContainmentEntity).find();
    expect(rows.map(({ scope, subject }) => ({ scope, subject }))).toEqual([
      { scope: 'actor', subject: fingerprintString('worker:mallory') },
    ]);
    expect(JSON.stringify(await dataSource.getRepository(DecisionRecordEntity).find())).not.toContain('worker:mallory');
  });

  it('refuses an unknown capability and a missing reason, and contains nothing', async () => {
    const { dataSource, cli, runJob } = await setup();
    const typo = await cli('contain', 'capability', 'jobs.rnu', ...attribution);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('No capability "jobs.rnu"');
    const unexplained = await cli('contain', 'tenant', 'acme', '--by', 'operator:7');
    expect(unexplained.code).toBe(2);
    expect(unexplained.stderr).toContain('--reason');
    expect(await dataSource.getRepository(ContainmentEntity).count()).toBe(0);
    expect(await runJob('c')).toBe('executed');
  });

  it('refuses an operator-identity hook that names nobody: exit 1, nothing contained or released, nothing recorded', async () => {
    const { cli, cliWithHookReturning, runJob, switches, containmentRecords } = await setup();
    const nobody = cliWithHookReturning();
    const contained = await nobody('contain', 'capability', JOBS_RUN, ...attribution);
    expect(contained.code).toBe(1);
    expect(contained.stderr).toContain('operator-identity hook named nobody (got undefined)');
    expect(await switches()).toEqual([]);
    expect(await runJob('a')).toBe('executed');

    expect((await cli('contain', 'capability', JOBS_RUN, ...attribution)).code).toBe(0);
    const released = await nobody('release', 'capability', JOBS_RUN, ...attribution, '--json');
    expect(released.code).toBe(1);
    expect(JSON.parse(released.stderr).error).toContain('named nobody');
    expect(await switches()).toHaveLength(1);
    expect(await runJob('b')).toBe('deny@containment');
    expect((await containmentRecords()).filter((r) => r.toolKind === 'operator')).toHaveLength(1);

    // Control: a hook that names someone is recorded as who ran the command.
    const sso = cliWithHookReturning(JSON.stringify('sso:8812'));
    expect((await sso('release', 'capability', JOBS_RUN, ...attribution)).code).toBe(0);
    expect((await sso('contain', 'tenant', 'acme', ...attribution)).code).toBe(0);
    expect(await switches()).toEqual([expect.objectContaining({ scope: 'tenant', operatorIdentity: 'sso:8812' })]);
  });

  it('release of an actor or a tenant prints its fingerprint, never the key or id, in text and --json, on success and failure', async () => {
    const { cli, cliWithHookReturning } = await setup();
    const mallory = fingerprintString('worker:mallory');
    const acme = fingerprintString('acme');
    const outputs: string[] = [];
    const run = async (...args: string[]) => {
      const result = await cli(...args);
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    expect((await run('contain', 'actor', 'worker:mallory', ...attribution)).code).toBe(0);
    const released = await run('release', 'actor', 'worker:mallory', ...attribution, '--json');
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toEqual({ scope: 'actor', released: true, subject: mallory });
    const again = await run('release', 'actor', 'worker:mallory', ...attribution);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no kill switch is engaged for actor ${mallory}`);

    expect((await run('contain', 'tenant', 'acme', ...attribution)).code).toBe(0);
    const tenant = await run('release', 'tenant', 'acme', ...attribution);
    expect(tenant).toMatchObject({ code: 0, stdout: `released the tenant kill switch for ${acme}\n` });
    expect((await run('release', 'tenant', 'acme', ...attribution, '--json')).code).toBe(1);
    // A command that fails on the way (here the operator-identity hook) names the switch by its fingerprint too.
    const failed = await cliWithHookReturning()('contain', 'actor', 'worker:mallory', ...attribution);
    outputs.push(failed.stdout, failed.stderr);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`actor ${mallory}: The CLI's operator-identity hook named nobody`);
    expect(outputs.join('\n')).not.toMatch(/worker:mallory|\bacme\b/);

    // Control: a capability is named as it is.
    expect((await cli('contain', 'capability', JOBS_RUN, ...attribution)).code).toBe(0);
    expect((await cli('release', 'capability', JOBS_RUN, ...attribution)).stdout).toContain(
      `released the capability kill switch for ${JOBS_RUN}`,
    );
  });

  it('releases the kill switch of a capability the application no longer registers; containing one stays refused', async () => {
    const { dataSource, cli, switches } = await setup();
    // Engaged while jobs.retired was registered; this application version no longer has it.
    await new TypeOrmContainmentStore(dataSource).engage({
      scope: 'capability',
      subject: 'jobs.retired',
      reason: 'INC-4400',
      engagedBy: 'operator:7',
      operatorIdentity: null,
      engagedAt: new Date('2026-01-01T10:00:00.000Z'),
    });
    const released = await cli('release', 'capability', 'jobs.retired', ...attribution);
    expect(released).toMatchObject({ code: 0, stdout: 'released the capability kill switch for jobs.retired\n' });
    expect(await switches()).toEqual([]);
    const contained = await cli('contain', 'capability', 'jobs.retired', ...attribution);
    expect(contained.code).toBe(1);
    expect(contained.stderr).toContain('No capability "jobs.retired"');
    expect(await switches()).toEqual([]);
  });

  it.each([
    ['contain', '--by', '  '],
    ['contain', '--reason', ' '],
    ['release', '--by', '\t'],
    ['release', '--reason', '   '],
  ])('%s with a blank %s is a usage error (exit 2) and changes nothing', async (verb, flag, blank) => {
    const { cli, switches, containmentRecords } = await setup();
    if (verb === 'release') expect((await cli('contain', 'actor', 'worker:mallory', ...attribution)).code).toBe(0);
    const before = { switches: await switches(), records: (await containmentRecords()).length };
    const options = { '--by': 'operator:7', '--reason': 'INC-4411', [flag]: blank };
    const result = await cli(verb, 'actor', 'worker:mallory', ...Object.entries(options).flat());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--by <opaque operator id> and --reason <text> are required');
    expect({ switches: await switches(), records: (await containmentRecords()).length }).toEqual(before);
  });
});
