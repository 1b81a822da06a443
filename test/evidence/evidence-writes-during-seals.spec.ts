import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { z } from 'zod';
import {
  ActionContextStore,
  ExecutionTargetPolicy,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, whenBlocked, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
/** Concurrent callers, each writing a call's evidence as a fully gated call does: two records, then one. */
const CALLERS = 20;
const CALLS_PER_CALLER = 60;

/** A second DataSource on `dataSource`'s database that keeps the evidence INSERTs it sent and every statement that failed. */
async function watched(dataSource: DataSource) {
  const inserts: string[] = [];
  const failures: Array<{ sql: string; error: unknown }> = [];
  const logger: Logger = {
    logQuery: (sql) => {
      if (/^INSERT INTO \S*verdict_decision_records/i.test(sql)) inserts.push(sql);
    },
    logQueryError: (error, sql) => {
      failures.push({ sql, error });
    },
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  const logged = await new DataSource({ ...dataSource.options, migrations: [], logger }).initialize();
  return { dataSource: logged, inserts, failures };
}

/**
 * A defect found by the gated-call bench: on MariaDB the background seal's UPDATE of the pending marks was
 * planned as a scan of the record table, which at REPEATABLE READ locks every row and gap it passes, and a
 * concurrent multi-row evidence INSERT deadlocked with it — the call failed closed with
 * VERDICT_EVIDENCE_WRITE_FAILED (ADR 0097). PostgreSQL runs the same traffic as a check of the same pattern.
 */
for (const engine of databaseEngines().filter((candidate) => candidate.name !== 'sqlite')) {
  describe(`evidence written flat out while seals run [${engine.name}]`, () => {
    it(`${CALLERS} concurrent callers write ${CALLERS * CALLS_PER_CALLER} calls' evidence while background and manual seals run: no write and no statement fails, and every record is linked`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { dataSource: logged, failures } = await watched(dataSource);
        try {
          const stream = `tenant:${randomUUID()}`;
          const recorder = new TypeOrmEvidenceRecorder(logged);
          const sealer = new TypeOrmEvidenceRecorder(logged, { seal: 'manual' });
          let writing = true;
          const manualSeals = (async () => {
            let seals = 0;
            while (writing || seals === 0) {
              await sealer.seal();
              seals++;
            }
            return seals;
          })();
          const outcomes = await Promise.allSettled(
            Array.from({ length: CALLERS }, async (_, caller) => {
              for (let call = 0; call < CALLS_PER_CALLER; call++) {
                await recorder.recordDecisions([
                  streamDecision(stream, `caller ${caller} call ${call} proposal`),
                  streamDecision(stream, `caller ${caller} call ${call} authorization`),
                ]);
                await recorder.recordDecisions([streamDecision(stream, `caller ${caller} call ${call} execution`)]);
              }
            }),
          ).finally(() => (writing = false));
          expect(await manualSeals).toBeGreaterThan(0);
          await recorder.whenSealed();

          expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
          expect(failures.map(({ sql, error }) => `${String(error)} in ${sql.slice(0, 60)}`)).toEqual([]);
          const total = CALLERS * CALLS_PER_CALLER * 3;
          const verdict = (await sealer.verify()).find((verification) => verification.stream === stream);
          expect(verdict).toMatchObject({ intact: true, records: total, unsealed: 0 });
        } finally {
          await logged.destroy();
        }
      });
    });
  });
}

const mariadb = databaseEngines().find((engine) => engine.name === 'mariadb');

(mariadb === undefined ? describe.skip : describe)('evidence INSERT picked as a deadlock victim [mariadb]', () => {
  it('is sent again once the deadlock is broken, and its records are stored once', async () => {
    await withDataSource(mariadb!, SCHEMA, async (dataSource) => {
      const { dataSource: logged, inserts, failures } = await watched(dataSource);
      const blocker = dataSource.createQueryRunner('master');
      try {
        // Ids in key order first < separator < second: a gap lock on `second`'s gap leaves `first`'s free.
        const prefix = randomUUID().slice(0, 32);
        const stream = `tenant:${randomUUID()}`;
        const recorder = new TypeOrmEvidenceRecorder(logged, { seal: 'manual' });
        const record = (suffix: string) => ({
          ...streamDecision(stream, `record ${suffix}`),
          id: `${prefix}-${suffix}`,
        });
        await recorder.recordDecision(record('2'));
        const [first, second] = [record('1'), record('3')];

        // Another transaction, heavier than one INSERT (the server picks the lighter one as its victim), locks
        // the gap `second` goes into.
        await dataSource.query('CREATE TABLE deadlock_ballast (n int PRIMARY KEY)');
        await blocker.startTransaction('REPEATABLE READ');
        await blocker.query(
          `INSERT INTO deadlock_ballast (n) VALUES ${Array.from({ length: 200 }, (_, n) => `(${n})`).join(', ')}`,
        );
        await blocker.query('SELECT id FROM verdict_decision_records WHERE id = ? FOR UPDATE', [second.id]);

        // The evidence INSERT writes `first`, then waits for the gap of `second`.
        const write = recorder.recordDecisions([first, second]);
        // `first` comes before `second` in the statement's text, well within what the server keeps of it.
        await whenBlocked(dataSource, { statementContaining: first.id }, write);

        // The blocker now waits for `first`: a deadlock. The server rolls the INSERT back (nothing of it stays),
        // so the blocker gets its lock; the INSERT, sent again, waits until the blocker ends.
        await blocker.query('SELECT id FROM verdict_decision_records WHERE id = ? FOR UPDATE', [first.id]);
        await blocker.rollbackTransaction();
        await write;

        expect(failures.map(({ error }) => (error as { code?: string }).code)).toEqual(['ER_LOCK_DEADLOCK']);
        expect(inserts).toHaveLength(3); // the separator's, the victim's, and the one sent again
        const stored: Array<{ id: string }> = await dataSource.query(
          'SELECT id FROM verdict_decision_records WHERE stream = ? ORDER BY id',
          [stream],
        );
        expect(stored.map((row) => row.id)).toEqual([first.id, `${prefix}-2`, second.id]);
      } finally {
        if (blocker.isTransactionActive) await blocker.rollbackTransaction();
        await blocker.release();
        await logged.destroy();
      }
    });
  });
});

/** A read behind no gate but the evidence written before it runs. */
async function bootReads(recorder: TypeOrmEvidenceRecorder) {
  const reads: string[] = [];
  const read = defineCapability(
    {
      name: 'documents.read',
      description: 'Read a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.string() }),
      resolveTarget: fromProposal(({ arguments: args }) => ({ id: (args as { id: string }).id })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: string }>({
        name: 'document-id',
        identity: (document) => document.id,
      }),
    },
    async (action) => {
      reads.push((action.target as { id: string }).id);
      return 'read';
    },
  );
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'Document' }]) },
        evidence: recorder,
        capabilities: [read],
      }),
    ],
  })
  class ReadsModule {}
  const app = await NestFactory.createApplicationContext(ReadsModule, { logger: false });
  await app.init();
  const call = (id: string) =>
    app
      .get(ActionContextStore)
      .run({ actor: { id: 72 }, tenant: 'acme' }, () =>
        app.get(VerdictService).execute({ capability: 'documents.read', arguments: { id } }),
      );
  return { app, call, reads };
}

for (const engine of databaseEngines().filter((candidate) => candidate.name !== 'sqlite')) {
  describe(`an evidence write failing for another reason [${engine.name}]`, () => {
    it('control: is sent once and the call still rejects as VERDICT_EVIDENCE_WRITE_FAILED, executing nothing', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { dataSource: logged, inserts, failures } = await watched(dataSource);
        const recorder = new TypeOrmEvidenceRecorder(logged, { seal: 'manual' });
        const { app, call, reads } = await bootReads(recorder);
        try {
          await dataSource.query('ALTER TABLE verdict_decision_records RENAME TO verdict_decision_records_away');
          await expect(call('doc_1')).rejects.toMatchObject({ code: 'VERDICT_EVIDENCE_WRITE_FAILED' });
          expect(reads).toEqual([]);
          expect(inserts).toHaveLength(1);
          expect(failures).toHaveLength(1);
        } finally {
          await app.close();
          await logged.destroy();
        }
      });
    });

    it('utility: with the table in place the same call executes and its evidence is written', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { dataSource: logged, inserts, failures } = await watched(dataSource);
        const recorder = new TypeOrmEvidenceRecorder(logged, { seal: 'manual' });
        const { app, call, reads } = await bootReads(recorder);
        try {
          expect((await call('doc_1')).executed).toBe(true);
          expect(reads).toEqual(['doc_1']);
          expect(inserts.length).toBeGreaterThan(0);
          expect(failures).toEqual([]);
        } finally {
          await app.close();
          await logged.destroy();
        }
      });
    });
  });
}
