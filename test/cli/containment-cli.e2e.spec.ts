import { afterEach, describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import { ActionContextStore, VerdictService, fingerprintString } from '@verdict/nestjs';
import { ContainmentEntity, DecisionRecordEntity, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, testingKitFixture } from '@verdict/testing-kit';
import { userInfo } from 'node:os';
import { JOBS_RUN, jobsAppModule } from '../../libs/testing/src/fixtures/jobs-app.module.js';

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
  /** Runs the operator CLI in its own process; resolves with its exit code and output. */
  const cli = (...args: string[]) => runNodeScript(JOBS_CLI, [database, ...args]);
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
  return { dataSource, cli, runJob };
}

const attribution = ['--by', 'operator:7', '--reason', 'INC-4411'];

describe('operator CLI: containment', () => {
  it('contains a capability from another process, lists it, and releases it; each step recorded as evidence', async () => {
    const { dataSource, cli, runJob } = await setup();
    expect(await runJob('export-1')).toBe('executed');

    const contained = await cli('contain', 'capability', JOBS_RUN, ...attribution, '--json');
    expect(contained.code).toBe(0);
    expect(JSON.parse(contained.stdout)).toMatchObject({ scope: 'capability', engaged: true, subject: JOBS_RUN });
    expect(await runJob('export-2')).toBe('deny@containment');

    const again = await cli('contain', 'capability', JOBS_RUN, ...attribution);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already contained');

    const listed = JSON.parse((await cli('contain', 'list', '--json')).stdout);
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

    const released = await cli('release', 'capability', JOBS_RUN, '--by', 'operator:7', '--reason', 'INC-4411 fixed');
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
});
