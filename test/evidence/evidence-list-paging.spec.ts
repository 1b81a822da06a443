import { describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceFilter,
  type EvidenceQuery,
  type EvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  decisionRecord,
} from '@verdict/nestjs';
import { TypeOrmEvidenceQuery, TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';
import { v7 } from 'uuid';

/** Memory, and TypeORM on each engine of the database matrix. */
const backends = storeBackends<{ recorder: Required<EvidenceRecorder>; query: EvidenceQuery }>(
  () => {
    const recorder = new InMemoryEvidenceRecorder();
    return { recorder, query: new InMemoryEvidenceQuery(recorder) };
  },
  (dataSource) => ({ recorder: new TypeOrmEvidenceRecorder(dataSource), query: new TypeOrmEvidenceQuery(dataSource) }),
);

const STAGES = ['proposal', 'approval', 'execution'] as const;
const at = (millisecond: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, millisecond));

/** A run of `stages` stages of one proposal, every record of it in one millisecond, as a pipeline writes them. */
const run = (millisecond: number, stages = 1): DecisionRecord[] => {
  const correlationId = v7();
  return STAGES.slice(0, stages).map((stage, sequence) =>
    decisionRecord(
      {
        id: v7(),
        correlationId,
        sequence,
        capability: 'orders.refund',
        toolKind: 'bound',
        stage,
        disposition: 'permit',
        reason: 'allowed',
        recordedAt: at(millisecond),
      },
      {},
    ),
  );
};

/**
 * The paging docs/evidence.md ("`EvidenceQuery`") gives, as `list` has no cursor: `until` is exclusive, so the next
 * page is read with `until` set to the oldest listed record's time plus one millisecond, the records already seen
 * are dropped by `id`, and a page shorter than `limit` is the last. A full page within one millisecond cannot be paged
 * past that way.
 */
async function everyRecord(query: EvidenceQuery, filter: EvidenceFilter & { limit: number }) {
  const seen = new Map<string, DecisionRecord>();
  let until: Date | undefined;
  for (;;) {
    const page = await query.list({ ...filter, until });
    for (const record of page) if (!seen.has(record.id)) seen.set(record.id, record);
    if (page.length < filter.limit) return [...seen.values()];
    const oldest = page[page.length - 1]!.recordedAt.getTime();
    if (page[0]!.recordedAt.getTime() === oldest)
      throw new Error('a full page within one millisecond: raise the limit or narrow the filter');
    until = new Date(oldest + 1);
  }
}

describe.each(backends)('reading every record of a list, page by page [%s]', (_engine, open) => {
  // Newest first, each group in its own millisecond: 2 runs, a run of 3 stages, 2 runs, 1 run, 2 runs (10 records).
  const records = () => [...run(9), ...run(9), ...run(8, 3), ...run(7), ...run(7), ...run(6), ...run(5), ...run(5)];

  it('paging with `until` at the last listed record skips the records that share its millisecond', async () => {
    const { recorder, query, close } = await open();
    try {
      const written = records();
      await recorder.recordDecisions(written);

      let page = await query.list({ limit: 4 });
      const read = [...page];
      while (page.length === 4) {
        page = await query.list({ limit: 4, until: page[page.length - 1]!.recordedAt });
        read.push(...page);
      }

      // The 3-stage run's proposal and the last millisecond's second run were never listed.
      const missed = written.filter((record) => !read.some((each) => each.id === record.id));
      expect(missed.map((record) => [record.recordedAt.getTime(), record.stage])).toEqual([
        [at(8).getTime(), 'proposal'],
        [at(5).getTime(), 'proposal'],
      ]);
    } finally {
      await close();
    }
  });

  it('reads every record once with `until` one millisecond past the oldest listed record, dropping those seen', async () => {
    const { recorder, query, close } = await open();
    try {
      const written = records();
      await recorder.recordDecisions(written);

      const read = await everyRecord(query, { capability: 'orders.refund', limit: 4 });

      expect(read.map((record) => record.id).sort()).toEqual(written.map((record) => record.id).sort());
      // Newest first across the pages, as one list would answer.
      expect(read.map((record) => record.recordedAt.getTime())).toEqual(
        [...read.map((record) => record.recordedAt.getTime())].sort((a, b) => b - a),
      );
    } finally {
      await close();
    }
  });

  it('cannot page past a full page within one millisecond; a larger limit reads it (control)', async () => {
    const { recorder, query, close } = await open();
    try {
      const written = [...run(8, 3), ...run(8, 3)];
      await recorder.recordDecisions(written);

      await expect(everyRecord(query, { limit: 4 })).rejects.toThrow('a full page within one millisecond');
      expect((await everyRecord(query, { limit: 10 })).length).toBe(written.length);
    } finally {
      await close();
    }
  });
});
