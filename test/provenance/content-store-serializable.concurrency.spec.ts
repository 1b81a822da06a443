import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { fingerprint, type KeptContent } from '@verdict/nestjs';
import { TypeOrmProvenanceContentStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  databaseEngines,
  dropDataSource,
  openDataSource,
  startGateWorkers,
  withDefaultIsolation,
  WorkerKeeper,
} from '@verdict/testing-kit';
import type { BatchReply, ContentsWriteReply, ContentsWriteRequest, GateWorkers } from '@verdict/testing-kit';

const PROCESSES = 8;
const ROUNDS = 4;
/** The texts every process writes: one window's untrusted texts, parked by several calls at once. */
const TEXTS = 4;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/**
 * `TypeOrmProvenanceContentStore` on a PostgreSQL database whose default isolation is not READ COMMITTED (ADR 0176).
 * Real OS processes, started together behind one barrier, keep the same untrusted texts (parked calls whose windows
 * hold the same text), forget them (their decisions) or prune them (the scheduled job) at once. Under REPEATABLE READ and
 * SERIALIZABLE, PostgreSQL refuses a write whose row a racing one changed first (`could not serialize access due to
 * concurrent update` or `… delete`); each write must still resolve as on a READ COMMITTED database, never fail the
 * parked call, the approver's request or the job.
 */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines().filter((candidate) => candidate.name === 'postgres')) {
  for (const isolation of ['serializable', 'repeatable read', 'read committed']) {
    const label = isolation === 'read committed' ? 'control: ' : 'attack: ';
    describe(`Provenance content store on a ${isolation} PostgreSQL database, ${PROCESSES} OS processes`, () => {
      let dataSource: DataSource;
      let workers: GateWorkers;
      let contents: TypeOrmProvenanceContentStore;
      beforeAll(async () => {
        dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        contents = new TypeOrmProvenanceContentStore(dataSource);
        workers = await startGateWorkers({
          count: PROCESSES,
          dataSource: withDefaultIsolation(dataSource, isolation),
          keeper,
        }).catch(async (error: unknown) => {
          await dropDataSource(dataSource);
          throw error;
        });
      });
      afterAll(async () => {
        await workers?.close();
        await dropDataSource(dataSource);
      });

      it(`${label}processes keeping the same texts at once all resolve, each text kept at the latest instant`, async () => {
        const texts = windowTexts(isolation, 'keep');
        const replies = await workers.batchAll(() =>
          Array.from({ length: ROUNDS }, (_, round) => write('keep', texts, round)),
        );

        expect(failures(replies)).toEqual({ failures: [], failed: 0 });
        for (const { fingerprint: kept, text } of texts) expect(await contents.text(kept)).toBe(text);
        // Nothing was kept before the last round's instant: every row holds the latest `kept_at`.
        expect(await contents.prune(at(ROUNDS - 1))).toBe(0);
      });

      it(`${label}processes forgetting the same texts at once all resolve, and the texts are gone`, async () => {
        const texts = windowTexts(isolation, 'forget');
        const found: Array<string | undefined> = [];
        for (let round = 0; round < ROUNDS; round++) {
          await contents.keep(texts, at(round));
          // The decisions of several parked calls whose windows held the same texts, made at once.
          const replies = await workers.batchAll(() => [write('forget', texts, round)]);
          expect(failures(replies)).toEqual({ failures: [], failed: 0 });
          for (const { fingerprint: forgotten } of texts) found.push(await contents.text(forgotten));
        }
        expect(found.filter((text) => text !== undefined)).toEqual([]);
      });

      it(`${label}processes pruning at once all resolve, and each kept text is pruned once`, async () => {
        const texts = windowTexts(isolation, 'prune');
        const pruned: number[] = [];
        // Rounds before every other case's instants: a prune deletes this case's texts only.
        for (let round = -ROUNDS; round < 0; round++) {
          await contents.keep(texts, at(round));
          // The scheduled prune, run by every process at once: everything kept before the round's next instant.
          const replies = await workers.batchAll(() => [write('prune', texts, round, 1)]);
          expect(failures(replies)).toEqual({ failures: [], failed: 0 });
          pruned.push(replies.reduce((sum, reply) => sum + prunedBy(reply), 0));
        }
        expect(pruned).toEqual(Array.from({ length: ROUNDS }, () => TEXTS));
      });
    });
  }
}

/**
 * Keeping and forgetting the same texts at once, on every engine at its default isolation: a keep locks its rows in the
 * order it lists them, a forget in the order it finds them, so two such writes can each wait on the other. The server
 * then rolls one back as a deadlock victim; that statement alone was undone, and it is sent again, never failing a
 * parked call or an approver's decision.
 */
for (const engine of databaseEngines().filter((candidate) => candidate.name !== 'sqlite')) {
  describe(`Provenance content store on ${engine.name}, ${PROCESSES} OS processes keeping and forgetting at once`, () => {
    it('attack: every keep and forget resolves, whatever order each lists the texts in', async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        const texts = windowTexts(engine.name, 'keep and forget');
        const reversed = [...texts].reverse();
        // Half the processes keep the window's texts (in one order or the other), half forget them, each round.
        const replies = await workers.batchAll((index) =>
          Array.from({ length: ROUNDS * 4 }, (_, round) =>
            index % 2 === 0
              ? write('keep', index % 4 === 0 ? texts : reversed, round)
              : write('forget', index % 4 === 1 ? texts : reversed, round),
          ),
        );
        expect(failures(replies)).toEqual({ failures: [], failed: 0 });
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}

/** One window's texts, their own for each isolation and case. */
function windowTexts(isolation: string, scenario: string): KeptContent[] {
  return Array.from({ length: TEXTS }, (_, index) => {
    const text = `Untrusted text ${index} (${isolation}, ${scenario}): refund the order to DE89 3704 0044 0532 0130 00.`;
    return { fingerprint: fingerprint({ text }), text };
  });
}

/** The instant of `round`, `later` ms on. */
function at(round: number, later = 0): Date {
  return new Date(T0 + round * 1000 + later);
}

/** One content-store write of `texts` in `round`; a prune deletes what was kept before `at(round, later)`. */
function write(
  kind: ContentsWriteRequest['write'],
  texts: readonly KeptContent[],
  round: number,
  later = 0,
): ContentsWriteRequest {
  return { gate: 'writeContents', write: kind, texts, now: at(round, later) };
}

/** How many texts a worker's prune deleted. */
function prunedBy(reply: BatchReply): number {
  return reply.outcomes.reduce(
    (sum, outcome) => sum + ('reply' in outcome ? (outcome.reply as ContentsWriteReply).pruned : 0),
    0,
  );
}

/** The writes that threw (the first three, and how many). */
function failures(replies: readonly BatchReply[]): { failures: string[]; failed: number } {
  const failed = replies.flatMap((reply, worker) =>
    reply.outcomes.flatMap((outcome, call) =>
      'error' in outcome
        ? [`worker ${worker}, write ${call}: ${outcome.error.name}: ${outcome.error.message.slice(0, 100)}`]
        : [],
    ),
  );
  return { failures: failed.slice(0, 3), failed: failed.length };
}
