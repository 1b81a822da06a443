import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ChainProblem, type ChainVerification, type DecisionRecord, EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

/**
 * `verify` on PostgreSQL hashes each record's canonical JSON built from its stored columns (ADR 0080), not the
 * record TypeORM hydrates. These records are the ones whose text that could get wrong: characters JSON escapes,
 * every column type a record has (text, integers, a boolean, instants, nulls), and instants outside years
 * 1-9999, which are hashed the general way. Run on every engine: elsewhere they are the general path's controls.
 */
const awkward: ReadonlyArray<readonly [label: string, record: (stream: string) => DecisionRecord]> = [
  ['quotes, backslashes, control characters', (stream) => streamDecision(stream, 'a "quoted" \\ path\n\ttab \u0001')],
  ['line separators and astral characters', (stream) => streamDecision(stream, 'u2028 \u2028 u2029 \u2029 😀 é')],
  [
    'integers, a boolean and a second instant',
    (stream) =>
      streamDecision(stream, 'facts', new Date(Date.UTC(2026, 5, 1, 12, 0, 0, 7)), {
        stage: 'rate_limit',
        facts: {
          identityMatch: false,
          rateLimitLimit: 10,
          rateLimitRemaining: 0,
          rateLimitResetAt: new Date(Date.UTC(2026, 5, 1, 12, 1, 0, 999)),
          claimAttempt: -1,
        },
      }),
  ],
  ['a year past 9999', (stream) => streamDecision(stream, 'far future', new Date(Date.UTC(10_000, 0, 1)))],
  ['the first year', (stream) => streamDecision(stream, 'year one', new Date('0001-01-01T00:00:00.000Z'))],
];

for (const engine of databaseEngines()) {
  describe(`verify hashes records from their stored form [${engine.name}]`, () => {
    async function sealed(dataSource: DataSource) {
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      const stream = `tenant:${randomUUID()}`;
      const records = awkward.map(([, record]) => record(stream));
      // Engines that cannot store the year 10000 (MySQL/MariaDB's datetime) leave that record out.
      for (const record of records) await recorder.recordDecision(record).catch(() => undefined);
      await recorder.seal();
      const verdict = async (): Promise<ChainVerification> =>
        (await recorder.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream)!;
      const written: Array<{ id: string }> = await dataSource.query(
        `SELECT id FROM verdict_decision_records WHERE stream = ${engine.name === 'postgres' ? '$1' : '?'}`,
        [stream],
      );
      return { verdict, ids: new Set(written.map((row) => row.id)), records };
    }

    it('utility: records with every awkward value verify intact', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict, ids } = await sealed(dataSource);
        expect(ids.size).toBeGreaterThanOrEqual(awkward.length - 1);
        expect(await verdict()).toMatchObject({ intact: true, records: ids.size, unsealed: 0 });
      });
    });

    it('names a record whose escaped text, integer, boolean or far-future instant was changed', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
        const edits: ReadonlyArray<readonly [label: string, set: string, value: unknown]> = [
          ['quotes, backslashes, control characters', 'reason', 'a "quoted" \\ path\n\ttab \u0002'],
          ['line separators and astral characters', 'reason', 'u2028 \u2028 u2029 \u2029 😁 é'],
          ['integers, a boolean and a second instant', 'claim_attempt', 1],
          ['integers, a boolean and a second instant', 'identity_match', true],
          ['a year past 9999', 'recorded_at', new Date(Date.UTC(10_000, 0, 1, 0, 0, 0, 1))],
        ];
        for (const [label, column, value] of edits) {
          const { verdict, ids, records } = await sealed(dataSource);
          const target = records[awkward.findIndex(([name]) => name === label)]!;
          if (!ids.has(target.id)) continue; // not storable on this engine (the year 10000 on MySQL/MariaDB)
          // The value as the engine's driver stores it (a boolean as 1 and an instant as text on SQLite).
          const metadata = dataSource.getMetadata('verdict_decision_records').findColumnWithDatabaseName(column)!;
          await dataSource.query(`UPDATE verdict_decision_records SET ${column} = ${p(1)} WHERE id = ${p(2)}`, [
            dataSource.driver.preparePersistentValue(value, metadata),
            target.id,
          ]);
          expect({ label, column, verdict: await verdict() }).toMatchObject({
            label,
            column,
            verdict: { intact: false, problem: ChainProblem.Modified },
          });
        }
      });
    });
  });
}
