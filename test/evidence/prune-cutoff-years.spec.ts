import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  type CheckpointKey,
  type EvidenceChain,
  type EvidenceRecorder,
  InMemoryEvidenceRecorder,
  InvalidEvidenceFilterError,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { storeBackends, streamDecision } from '@verdict/testing-kit';
import { inProcessCli } from '../cli/in-process-cli.js';

const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'prune-cutoff-years', secret: 'the application key' };

/** Memory, and TypeORM on each engine of the database matrix: a recorder with a prune. */
const backends = storeBackends<{ recorder: Required<EvidenceRecorder> & EvidenceChain }>(
  () => ({ recorder: new InMemoryEvidenceRecorder() }),
  (dataSource) => ({ recorder: new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' }) }),
);

/** Three records of one stream, recorded in 2026. */
async function recordThree(recorder: Required<EvidenceRecorder> & EvidenceChain): Promise<string> {
  const stream = `tenant:${randomUUID()}`;
  await recorder.recordDecisions(
    [0, 1, 2].map((i) => streamDecision(stream, `r${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))),
  );
  await recorder.seal();
  return stream;
}

/** The stream's verdict: whether it verifies, and how many records it keeps. */
async function kept(recorder: EvidenceChain, stream: string) {
  const verdict = (await recorder.verify()).find((each) => each.stream === stream);
  return { intact: verdict?.intact, records: verdict?.records };
}

/**
 * A prune cutoff past 9999 (UTC) pruned every record on memory and PostgreSQL, while SQLite (instants compared as text,
 * `+010000-…` before `2026-…`) and MariaDB (`DATETIME` ends with 9999) refused an intact chain as changed since its
 * verification: a false `EvidenceChainBrokenError` ("modified at sequence 1", exit 1). The cutoff is now refused on
 * every recorder alike, as a filter's date is, and the CLI refuses it as a usage error (exit 2).
 */
describe.each(backends)('a prune cutoff outside the years 0001–9999 [%s]', (_engine, open) => {
  it.each([
    ['in the year 10000', new Date('+010000-01-01T04:00:00.000Z')],
    ['at the last instant a Date holds', new Date(8.64e15)],
    ['in the year 0', new Date('0000-06-01T00:00:00.000Z')],
    ['an invalid Date', new Date(Number.NaN)],
  ])('is refused by prune() %s, and nothing is pruned', async (_what, before) => {
    const { recorder, close } = await open();
    try {
      const stream = await recordThree(recorder);

      const refused = await recorder.prune(before).catch((error: unknown) => error);

      expect(refused).toBeInstanceOf(InvalidEvidenceFilterError);
      expect((refused as Error).message).toMatch(/before must be a valid Date in the years 0001 to 9999 \(UTC\)/);
      expect(await kept(recorder, stream)).toEqual({ intact: true, records: 3 });
    } finally {
      await close();
    }
  });

  it('is refused by `evidence prune --before` in the year 10000 UTC (a 9999 date in a zone west of UTC), exit 2', async () => {
    const { recorder, close } = await open();
    try {
      const stream = await recordThree(recorder);

      const refused = await inProcessCli(
        { evidence: recorder },
        'evidence',
        'prune',
        '--before',
        '9999-12-31T23:00:00-05:00',
        '--json',
      );

      expect(refused.code).toBe(2);
      expect(JSON.parse(refused.stderr).error).toContain('in the years 0001 to 9999 (UTC)');
      expect(refused.stdout).toBe('');
      expect(await kept(recorder, stream)).toEqual({ intact: true, records: 3 });
    } finally {
      await close();
    }
  });

  it('prunes every record before the last instant of 9999, through the API and the CLI (control)', async () => {
    const { recorder, close } = await open();
    try {
      const stream = await recordThree(recorder);
      await expect(recorder.prune(new Date('9999-12-31T23:59:59.999Z'))).resolves.toEqual({ pruned: 3, anchored: 1 });
      expect(await kept(recorder, stream)).toEqual({ intact: true, records: 0 });

      const other = await recordThree(recorder);
      const pruned = await inProcessCli(
        { evidence: recorder },
        'evidence',
        'prune',
        '--before',
        '9999-12-31T18:00:00-05:00',
        '--json',
      );

      expect(pruned.code).toBe(0);
      expect(JSON.parse(pruned.stdout)).toEqual({ before: '9999-12-31T23:00:00.000Z', pruned: 3, anchored: 1 });
      expect(await kept(recorder, other)).toEqual({ intact: true, records: 0 });
    } finally {
      await close();
    }
  });
});
