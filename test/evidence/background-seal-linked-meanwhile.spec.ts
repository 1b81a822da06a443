import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type CheckpointKey, EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, streamDecision } from '@verdict/testing-kit';
import { TypeOrmEvidenceChain } from '../../packages/verdict/src/typeorm/typeorm-evidence-chain.js';

const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'background-seal', secret: 'the application key' };

/** More records than a seal hashes between two turns of the event loop (32), so the chunks must chain on. */
const BATCH = 70;

/**
 * A background seal links the records its process just wrote. When another sealer (`verdict evidence seal`, a seal
 * racing it) linked one of them meanwhile, the batch links only the rest, after the stream's head: each record ends
 * linked once, in one gapless chain that verifies. (ADR 0142 measured, and rejected, a seal that skips reading which
 * records are linked and lets the links table's record key refuse such a batch: every race then leaves a failed
 * statement in the logs.)
 */
for (const engine of databaseEngines()) {
  describe(`A background seal's batch [${engine.name}]`, () => {
    /** Runs `work` on a fresh schema with a recorder that leaves sealing to the test, the chain, and a new stream. */
    async function sealing(
      signed: boolean,
      work: (
        recorder: TypeOrmEvidenceRecorder,
        chain: TypeOrmEvidenceChain,
        stream: string,
        links: () => Promise<Array<[string, number]>>,
      ) => Promise<void>,
    ): Promise<void> {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      try {
        const stream = `tenant:${randomUUID()}`;
        const links = async () =>
          (
            (await dataSource.query(
              `SELECT record_id, sequence FROM verdict_evidence_links WHERE stream = ${engine.name === 'postgres' ? '$1' : '?'} ORDER BY sequence`,
              [stream],
            )) as Array<{ record_id: string; sequence: number | string }>
          ).map((link): [string, number] => [link.record_id, Number(link.sequence)]);
        await work(
          new TypeOrmEvidenceRecorder(dataSource, { ...(signed ? { checkpointKey: KEY } : {}), seal: 'manual' }),
          new TypeOrmEvidenceChain(dataSource, signed ? KEY : undefined),
          stream,
          links,
        );
      } finally {
        await dropDataSource(dataSource);
      }
    }

    for (const signed of [false, true])
      describe(signed ? 'with a checkpoint key' : 'without a checkpoint key', () => {
        it('links only the records no other sealer linked meanwhile, each once, and the stream verifies', () =>
          sealing(signed, async (recorder, chain, stream, links) => {
            const first = streamDecision(stream, 'first');
            const second = streamDecision(stream, 'second');
            await recorder.recordDecision(first);
            // Another sealer links the first record before this process's background seal gets to its batch.
            await expect(recorder.seal()).resolves.toMatchObject({ sealed: 1 });
            await recorder.recordDecision(second);

            await expect(chain.link(EvidenceKind.Decision, stream, [first, second])).resolves.toEqual({
              sealed: 1,
              checkpoints: signed ? 1 : 0,
            });

            expect(await links()).toEqual([
              [first.id, 1],
              [second.id, 2],
            ]);
            const verdict = (await recorder.verify()).find((v) => v.stream === stream);
            expect(verdict).toMatchObject({ intact: true, records: 2, verifiedThrough: 2, unsealed: 0 });
          }));

        it(`utility: links a batch of ${BATCH} no other sealer touched, in write order, and the stream verifies`, () =>
          sealing(signed, async (recorder, chain, stream, links) => {
            const records = Array.from({ length: BATCH }, (_, i) => streamDecision(stream, `call ${i}`));
            await recorder.recordDecisions(records);

            await expect(chain.link(EvidenceKind.Decision, stream, records)).resolves.toEqual({
              sealed: BATCH,
              checkpoints: signed ? 1 : 0,
            });
            // Linked once: a later seal finds nothing left to link.
            await expect(recorder.seal()).resolves.toMatchObject({ sealed: 0 });

            expect(await links()).toEqual(records.map((record, i) => [record.id, i + 1]));
            const verdict = (await recorder.verify()).find((v) => v.stream === stream);
            expect(verdict).toMatchObject({ intact: true, records: BATCH, verifiedThrough: BATCH, unsealed: 0 });
          }));
      });

    // SQLite's seal runs in one synchronous turn inside BEGIN IMMEDIATE; the server engines' seals wait on the network.
    if (engine.name !== 'sqlite')
      it(`lets the event loop run between the hash chunks of a batch of ${BATCH}, not only while it waits on the database`, () =>
        sealing(false, async (recorder, chain, stream, links) => {
          const records = Array.from({ length: BATCH }, (_, i) => streamDecision(stream, `call ${i}`));
          await recorder.recordDecisions(records);
          // A ticker the event loop runs once per turn, and the turn each record was first hashed in (read off its
          // `reason`, which hashing reads).
          let turns = 0;
          let ticking = true;
          const tick = () => {
            turns++;
            if (ticking) setImmediate(tick);
          };
          const hashedIn: Array<number | undefined> = Array.from({ length: BATCH }, () => undefined);
          for (const [i, record] of records.entries()) {
            const { reason } = record;
            Object.defineProperty(record, 'reason', {
              enumerable: true,
              get: () => {
                hashedIn[i] ??= turns;
                return reason;
              },
            });
          }
          setImmediate(tick);
          try {
            await expect(chain.link(EvidenceKind.Decision, stream, records)).resolves.toEqual({
              sealed: BATCH,
              checkpoints: 0,
            });
          } finally {
            ticking = false;
          }

          expect(hashedIn.filter((turn) => turn === undefined)).toEqual([]);
          // Chunks of 32: the loop turned between records 31 and 32 and between 63 and 64, with no database reply
          // to wait for in between; within a chunk, it did not.
          expect(hashedIn[32]!).toBeGreaterThan(hashedIn[31]!);
          expect(hashedIn[64]!).toBeGreaterThan(hashedIn[63]!);
          expect(new Set(hashedIn.slice(0, 32)).size).toBe(1);
          expect(await links()).toEqual(records.map((record, i) => [record.id, i + 1]));
        }));
  });
}
