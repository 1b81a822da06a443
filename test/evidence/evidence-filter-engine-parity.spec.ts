import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceQuery,
  type EvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  InvalidEvidenceFilterError,
  decisionRecord,
} from '@verdict/nestjs';
import { TypeOrmEvidenceQuery, TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';
import { v7 } from 'uuid';
import { inProcessCli } from '../cli/in-process-cli.js';

/** Memory, and TypeORM on each engine of the database matrix. */
const backends = storeBackends<{ recorder: EvidenceRecorder; query: Required<EvidenceQuery> }>(
  () => {
    const recorder = new InMemoryEvidenceRecorder();
    return { recorder, query: new InMemoryEvidenceQuery(recorder) };
  },
  (dataSource) => ({ recorder: new TypeOrmEvidenceRecorder(dataSource), query: new TypeOrmEvidenceQuery(dataSource) }),
);

/** A shadow refusal of `orders.refund`, recorded in 2024: every lookup below that answers, answers it. */
const refusal = (): DecisionRecord =>
  decisionRecord(
    {
      id: v7(),
      correlationId: v7(),
      sequence: 0,
      capability: 'orders.refund',
      toolKind: 'bound',
      stage: 'proposal',
      disposition: 'would_deny',
      reason: 'not the owner',
      recordedAt: new Date('2024-01-01T00:00:00.000Z'),
    },
    {},
  );

const YEAR_10000 = new Date('+010000-01-01T00:00:00.000Z');
const LAST_INSTANT = new Date('9999-12-31T23:59:59.999Z');
const FIRST_INSTANT = new Date('0001-01-01T00:00:00.000Z');

/**
 * A lookup holding U+0000 failed on PostgreSQL with a raw `QueryFailedError` (a 500 behind an endpoint) where memory,
 * SQLite and MariaDB answered `[]`; an `until` past 9999 answered nothing on SQLite (instants compared as text) and
 * MariaDB (`DATETIME` ends with 9999) where memory and PostgreSQL answered the record. Each is now refused as a filter
 * the query cannot answer, alike on every engine.
 */
describe.each(backends)('EvidenceQuery lookups every engine answers alike [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  let record: DecisionRecord;
  beforeAll(async () => {
    backend = await open();
    record = refusal();
    await backend.recorder.recordDecision(record);
  });
  afterAll(async () => backend?.close());

  const refusedWith = async (lookup: Promise<unknown>, message: RegExp) => {
    const error = await lookup.then(
      (answer) => answer,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidEvidenceFilterError);
    expect((error as Error).message).toMatch(message);
  };

  it.each([
    ['U+0000', 'orders.refund\u0000'],
    ['a lone surrogate', 'orders.refund\ud800'],
  ])('refuses a capability holding %s in list and shadowSummary', async (_what, capability) => {
    const rule = /capability must be .*without U\+0000 or a lone surrogate/;
    await refusedWith(backend.query.list({ capability }), rule);
    await refusedWith(backend.query.shadowSummary({ capability }), rule);
  });

  it.each([
    ['U+0000', '\u0000'],
    ['a lone surrogate', '\udc00'],
  ])('refuses a correlation id holding %s in run', async (_what, suffix) => {
    await refusedWith(
      backend.query.run(`${record.correlationId}${suffix}`),
      /correlation id must be .*without U\+0000 or a lone surrogate/,
    );
  });

  it.each([
    ['until in the year 10000', { until: YEAR_10000 }],
    ['until at the last instant a Date holds', { until: new Date(8.64e15) }],
    ['since 1960 until the year 10000', { since: new Date('1960-01-01T00:00:00.000Z'), until: YEAR_10000 }],
    ['since in the year 10000', { since: YEAR_10000 }],
    ['since in the year 0', { since: new Date('0000-06-01T00:00:00.000Z') }],
    ['since in the year -1', { since: new Date('-000001-01-01T00:00:00.000Z') }],
  ])('refuses %s, in list and shadowSummary', async (_what, filter) => {
    const rule = /(since|until) must be a valid Date in the years 0001 to 9999/;
    await refusedWith(backend.query.list(filter), rule);
    await refusedWith(backend.query.shadowSummary(filter), rule);
  });

  it('answers a well-formed capability, correlation id and dates within 0001–9999 (control)', async () => {
    const widest = { since: FIRST_INSTANT, until: LAST_INSTANT };

    expect(await backend.query.list({ capability: 'orders.refund' })).toEqual([record]);
    expect(await backend.query.list({ capability: 'orders.refund', ...widest })).toEqual([record]);
    expect(await backend.query.list({ until: new Date('9999-01-01T00:00:00.000Z') })).toEqual([record]);
    expect(await backend.query.list({ since: new Date('2025-01-01T00:00:00.000Z'), until: LAST_INSTANT })).toEqual([]);
    expect(await backend.query.run(record.correlationId)).toEqual([record]);
    expect(await backend.query.shadowSummary({ capability: 'orders.refund', ...widest })).toEqual([
      expect.objectContaining({ capability: 'orders.refund', reason: 'not the owner', calls: 1, records: 1 }),
    ]);
    expect(await backend.query.list({ capability: 'orders.refundé' })).toEqual([]);
  });
});

/** `verdict <argv>` in this process over one record. */
async function evidenceCli() {
  const recorder = new InMemoryEvidenceRecorder();
  const record = refusal();
  await recorder.recordDecision(record);
  const evidenceQuery = new InMemoryEvidenceQuery(recorder);
  const cli = (...argv: string[]) => inProcessCli({ evidence: recorder, evidenceQuery }, ...argv);
  return { cli, record };
}

describe('verdict evidence list: a date outside 0001–9999', () => {
  it('refuses an --until that falls in the year 10000 (UTC) with exit 2, and lists nothing', async () => {
    const { cli } = await evidenceCli();

    const refused = await cli('evidence', 'list', '--until', '9999-12-31T23:00:00-05:00', '--json');

    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse(refused.stderr)).toEqual({
      error: 'until must be a valid Date in the years 0001 to 9999 (UTC)',
    });
  });

  it('lists the record for an --until of 9999-12-31 (control)', async () => {
    const { cli, record } = await evidenceCli();

    const listed = await cli('evidence', 'list', '--until', '9999-12-31', '--json');

    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((row) => row.id)).toEqual([record.id]);
  });
});

/**
 * The CLI read `--since`/`--until` through `Date.UTC`, which takes the years 0–99 as 1900–1999: `0050-01-01` was
 * refused as no calendar day (exit 2) where `EvidenceQuery` takes every year 0001–9999. The flags now take the range
 * the query takes, and a date the query refuses is refused as the query refuses it.
 */
describe('verdict evidence list and shadow-summary: dates in the years 0001–0099', () => {
  const ids = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((row) => row.id);

  it.each([
    ['a date', '0050-01-01'],
    ['the first day', '0001-01-01'],
    ['a leap day', '0048-02-29'],
    ['an instant with a zone', '0099-12-31T23:59:59.999+00:00'],
  ])('defect: takes %s of the years 0001–0099 as --since, as the query does', async (_what, since) => {
    const { cli, record } = await evidenceCli();

    const listed = await cli('evidence', 'list', '--since', since, '--json');
    const summary = await cli('evidence', 'shadow-summary', '--since', since, '--json');

    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ids(listed.stdout)).toEqual([record.id]);
    expect({ code: summary.code, stderr: summary.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('defect: lists nothing --until a date of the year 0050, which the record is after', async () => {
    const { cli } = await evidenceCli();

    const listed = await cli('evidence', 'list', '--since', '0001-01-01', '--until', '0050-01-01', '--json');

    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it.each([
    ['a day the year 0050 does not have', '0050-02-29', /^--since must be an ISO 8601 date or instant with a zone/],
    ['the year 0000', '0000-06-01', /^since must be a valid Date in the years 0001 to 9999 \(UTC\)$/],
    ['an instant in the year 0000 (UTC)', '0001-01-01T00:30:00+01:00', /^since must be a valid Date in the years/],
  ])('control: still refuses %s with exit 2, and lists nothing', async (_what, since, message) => {
    const { cli } = await evidenceCli();

    const refused = await cli('evidence', 'list', '--since', since, '--json');

    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 2, stdout: '' });
    expect((JSON.parse(refused.stderr) as { error: string }).error).toMatch(message);
  });
});
