import { describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceFilter,
  type EvidenceQuery,
  type EvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  InvalidEvidenceFilterError,
  decisionRecord,
  evidenceCursor,
} from '@verdict/nestjs';
import { TypeOrmEvidenceQuery, TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { countingStatements, storeBackends } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { v7 } from 'uuid';

/** Memory, and TypeORM on each engine of the database matrix (with the DataSource, to count what a call sends). */
const backends = storeBackends<{
  recorder: Required<EvidenceRecorder>;
  query: EvidenceQuery;
  dataSource?: DataSource;
}>(
  () => {
    const recorder = new InMemoryEvidenceRecorder();
    return { recorder, query: new InMemoryEvidenceQuery(recorder) };
  },
  (dataSource) => ({
    recorder: new TypeOrmEvidenceRecorder(dataSource),
    query: new TypeOrmEvidenceQuery(dataSource),
    dataSource,
  }),
);

const STAGES = ['proposal', 'approval', 'execution'] as const;
const at = (millisecond: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, millisecond));

/** A run of `stages` stages of one proposal, every record of it in one millisecond, as a pipeline writes them. */
const run = (millisecond: number, stages = 1, capability = 'orders.refund'): DecisionRecord[] => {
  const correlationId = v7();
  return STAGES.slice(0, stages).map((stage, sequence) =>
    record(millisecond, correlationId, sequence, stage, capability),
  );
};

const record = (
  millisecond: number,
  correlationId: string,
  sequence: number,
  stage: (typeof STAGES)[number] = 'proposal',
  capability = 'orders.refund',
): DecisionRecord =>
  decisionRecord(
    {
      id: v7(),
      correlationId,
      sequence,
      capability,
      toolKind: 'bound',
      stage,
      disposition: 'permit',
      reason: 'allowed',
      recordedAt: at(millisecond),
    },
    {},
  );

/** Every record `filter` lists, page by page with `after`, as docs/evidence.md ("`EvidenceQuery`") pages. */
async function everyRecord(query: EvidenceQuery, filter: Omit<EvidenceFilter, 'after'> & { limit: number }) {
  const read: DecisionRecord[] = [];
  // Bounded: a list that ignored `after` would answer its first page forever.
  for (let after: string | undefined, pages = 0; pages < 64; pages++) {
    const page = await query.list({ ...filter, after });
    read.push(...page);
    if (page.length < filter.limit) return read;
    after = evidenceCursor(page[page.length - 1]!);
  }
  throw new Error('more than 64 pages: `after` does not page');
}

const ids = (records: readonly DecisionRecord[]) => records.map((each) => each.id);

describe.each(backends)('paging a list with a cursor [%s]', (_engine, open) => {
  it('pages past a full page whose records share one millisecond, which `until` never could', async () => {
    const { recorder, query, close } = await open();
    try {
      // Two runs of three stages, all six in one millisecond; one more record a millisecond before.
      const written = [...run(8, 3), ...run(8, 3), ...run(7)];
      await recorder.recordDecisions(written);
      const first = await query.list({ limit: 4 });

      // `until` is exclusive and the oldest listed record's millisecond is the newest's: the next page by time is
      // the same page, or (one millisecond earlier) skips the two records of millisecond 8 not listed yet.
      expect(first.every((each) => each.recordedAt.getTime() === at(8).getTime())).toBe(true);
      expect(ids(await query.list({ limit: 4, until: at(9) }))).toEqual(ids(first));
      expect(await query.list({ limit: 4, until: at(8) })).toHaveLength(1);

      const next = await query.list({ limit: 4, after: evidenceCursor(first[3]!) });
      expect(next).toHaveLength(3);
      expect(ids([...first, ...next])).toEqual(ids(await query.list()));
      expect(new Set(ids([...first, ...next]))).toEqual(new Set(ids(written)));
    } finally {
      await close();
    }
  });

  it('lists each of many records sharing a millisecond and a correlation id once, in list order, at any page size', async () => {
    const { recorder, query, close } = await open();
    try {
      const shared = v7();
      const written = [
        ...run(9, 3),
        ...run(9, 3),
        ...run(9),
        // One correlation id and one millisecond, sequences 0 to 4; two records even share their sequence.
        ...[0, 1, 2, 3, 4, 4].map((sequence) => record(9, shared, sequence)),
        ...run(8, 2),
        ...run(5),
        ...run(5, 3),
      ];
      await recorder.recordDecisions(written);
      const whole = await query.list({ limit: 1000 });
      expect(whole).toHaveLength(written.length);

      for (const limit of [1, 2, 3, 4, 7, written.length, written.length + 1]) {
        const paged = await everyRecord(query, { limit });
        expect({ limit, ids: ids(paged) }).toEqual({ limit, ids: ids(whole) });
      }
      // The records of one correlation id in one millisecond: the later stage first; of one sequence, by id.
      const sharedOnes = whole.filter((each) => each.correlationId === shared);
      expect(sharedOnes.map((each) => each.sequence)).toEqual([4, 4, 3, 2, 1, 0]);
      expect(sharedOnes[0]!.id < sharedOnes[1]!.id).toBe(true);
    } finally {
      await close();
    }
  });

  it('combines the cursor with every other filter: the next page of the same filtered list', async () => {
    const { recorder, query, close } = await open();
    try {
      const refunds = [...run(9, 3), ...run(9, 3), ...run(8, 3), ...run(3, 3)];
      const cancels = [...run(9, 3, 'orders.cancel'), ...run(8, 3, 'orders.cancel')];
      await recorder.recordDecisions([...refunds, ...cancels]);

      const filter = { capability: 'orders.refund', stage: 'execution', since: at(4), until: at(10) } as const;
      const first = await query.list({ ...filter, limit: 2 });
      const second = await query.list({ ...filter, limit: 2, after: evidenceCursor(first[1]!) });
      expect(ids([...first, ...second])).toEqual(ids(await query.list(filter)));
      expect(second).toHaveLength(1);
      expect(await query.list({ ...filter, after: evidenceCursor(second[0]!) })).toEqual([]);

      // A cursor names a position in the one order every list shares: taken from another capability's record, it
      // lists this capability's records that follow that position.
      const everything = await query.list();
      const cancelAt8 = (await query.list({ capability: 'orders.cancel', until: at(9) }))[0]!;
      const following = everything.slice(everything.findIndex((each) => each.id === cancelAt8.id) + 1);
      expect(ids(await query.list({ capability: 'orders.refund', after: evidenceCursor(cancelAt8) }))).toEqual(
        ids(following.filter((each) => each.capability === 'orders.refund')),
      );
    } finally {
      await close();
    }
  });

  it('refuses a cursor evidenceCursor did not make, and reads nothing', async () => {
    const { recorder, query, dataSource, close } = await open();
    try {
      const written = run(9, 3);
      await recorder.recordDecisions(written);
      const cursor = evidenceCursor(written[2]!);
      const body = cursor.slice(cursor.indexOf('.') + 1);
      const forged = (keys: unknown) => `ev1.${Buffer.from(JSON.stringify(keys)).toString('base64url')}`;
      const refused: Array<[string, unknown]> = [
        ['an empty string', ''],
        ['a record id', written[0]!.id],
        ['an instant', at(9).toISOString()],
        ['another format', `ev2.${body}`],
        ['the cursor without its prefix', body],
        ['the cursor in base64 with padding', `ev1.${Buffer.from(body, 'base64url').toString('base64')}==`],
        ['the cursor with a character more', `${cursor}A`],
        ['the keys as an object', forged({ recordedAt: at(9).getTime(), correlationId: 'c', sequence: 0, id: 'i' })],
        ['an instant in the year 10000', forged([Date.parse('+010000-01-01T00:00:00Z'), 'c', 0, 'i'])],
        ['an instant as a string', forged([at(9).toISOString(), 'c', 0, 'i'])],
        ['a sequence past 32 bits', forged([at(9).getTime(), 'c', 2 ** 31, 'i'])],
        ['a fractional sequence', forged([at(9).getTime(), 'c', 0.5, 'i'])],
        ['a correlation id holding U+0000', forged([at(9).getTime(), 'c\u0000', 0, 'i'])],
        ['a correlation id of 65 characters', forged([at(9).getTime(), 'c'.repeat(65), 0, 'i'])],
        ['an empty id', forged([at(9).getTime(), 'c', 0, ''])],
        ['a number', 42],
        ['a record', written[0]],
      ];
      const counter = dataSource === undefined ? undefined : await countingStatements(dataSource);
      const counted = counter === undefined ? query : new TypeOrmEvidenceQuery(counter.dataSource);
      try {
        for (const [what, after] of refused) {
          const list = () => counted.list({ after: after as string });
          await expect(list()).rejects.toThrow(InvalidEvidenceFilterError);
          if (counter !== undefined) {
            const statements = await counter.during(() => list().catch(() => undefined));
            expect({ what, statements }).toEqual({ what, statements: 0 });
          }
        }
        // Control: the cursor as made pages, on the counted DataSource too, in one statement.
        expect(ids(await counted.list({ after: cursor }))).toEqual(ids([written[1]!, written[0]!]));
        if (counter !== undefined) expect(await counter.during(() => counted.list({ after: cursor }))).toBe(1);
      } finally {
        await counter?.dataSource.destroy();
      }
      expect(() => evidenceCursor({ ...written[0]!, recordedAt: new Date(Number.NaN) })).toThrow(
        InvalidEvidenceFilterError,
      );
    } finally {
      await close();
    }
  });

  it('control: a list without a cursor answers as it did, newest first', async () => {
    const { recorder, query, close } = await open();
    try {
      const older = run(5, 3);
      const newer = run(6);
      await recorder.recordDecisions([...older, ...newer]);

      expect(ids(await query.list())).toEqual(ids([...newer, ...[...older].reverse()]));
      expect(ids(await query.list({ limit: 2, until: at(6) }))).toEqual(ids([older[2]!, older[1]!]));
    } finally {
      await close();
    }
  });
});
