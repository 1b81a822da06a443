// How fast `verify` reads a long chain on PostgreSQL (issue 22, target 5): BENCH_VERIFY_RECORDS (default 100,000;
// the target names 1,000,000) decision records of one stream are bulk-inserted (a generated series) and linked by
// `seal()`, then `verify()` is timed against a plain read-and-hash loop over the same rows in the same run (pages of
// 5,000 links with their records by keyset, one SHA-256 of each row's JSON). Target: at least 50,000 records/s.
//
// Needs VERDICT_TEST_POSTGRES_URL; without it the bench is skipped.
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource } from '@verdict/testing-kit';
import { skipped, table, target } from './report.js';
import { fmt } from './stats.js';

const RECORDS = Number(process.env.BENCH_VERIFY_RECORDS ?? 100_000);
const PAGE = 5000;
const TARGET = 50_000;
const url = process.env.VERDICT_TEST_POSTGRES_URL;

/** The baseline: every link of `stream` with its record, page by page, each row hashed. */
async function readAndHash(dataSource, stream) {
  let after = 0;
  let rows = 0;
  for (;;) {
    const page = await dataSource.query(
      `SELECT l.sequence AS link_sequence, l.hash AS link_hash, r.* FROM verdict_evidence_links l JOIN verdict_decision_records r ON r.id = l.record_id WHERE l.kind = 'decision' AND l.stream = $1 AND l.sequence > $2 ORDER BY l.sequence LIMIT ${PAGE}`,
      [stream, after],
    );
    for (const row of page) createHash('sha256').update(JSON.stringify(row)).digest('hex');
    rows += page.length;
    if (page.length < PAGE) return rows;
    after = Number(page[page.length - 1].link_sequence);
  }
}

if (!url) skipped('postgres', 'VERDICT_TEST_POSTGRES_URL is not set');
else {
  const dataSource = await openDataSource(
    { name: 'postgres', url },
    { entities: verdictEntities, migrations: verdictMigrations },
  );
  try {
    const stream = `bench:${randomUUID()}`;
    await dataSource.query(
      `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, arguments_fingerprint, recorded_at)
       SELECT 'v' || i, 'c' || i, 0, $1, 'orders.refund', 'bound', 'execution', 'permit', 'permitted', encode(sha256(('a' || i)::bytea), 'hex'),
         timestamptz '2026-01-01 00:00:00+00' + i * interval '1 millisecond'
       FROM generate_series(1, ${RECORDS}) AS i`,
      [stream],
    );
    const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
    let started = performance.now();
    const { sealed } = await recorder.seal();
    const sealSeconds = (performance.now() - started) / 1000;
    if (sealed !== RECORDS) throw new Error(`the seal linked ${sealed} records, not ${RECORDS}`);

    started = performance.now();
    const [verdict] = (await recorder.verify()).filter((v) => v.stream === stream);
    const verifySeconds = (performance.now() - started) / 1000;
    if (!verdict?.intact || verdict.records !== RECORDS || verdict.unsealed !== 0)
      throw new Error(`the stream does not verify: ${JSON.stringify(verdict)}`);

    started = performance.now();
    const read = await readAndHash(dataSource, stream);
    const baselineSeconds = (performance.now() - started) / 1000;
    if (read !== RECORDS) throw new Error(`the baseline read ${read} records, not ${RECORDS}`);

    const rate = RECORDS / verifySeconds;
    table(`verify() of one stream of ${RECORDS} records on PostgreSQL`, [
      {
        records: RECORDS,
        'seal records/s': fmt(RECORDS / sealSeconds, 0),
        'verify records/s': fmt(rate, 0),
        'read-and-hash records/s': fmt(RECORDS / baselineSeconds, 0),
        'verify / read-and-hash time': fmt(verifySeconds / baselineSeconds, 2),
      },
    ]);
    console.log(
      target(`postgres verify >= ${TARGET} records/s at ${RECORDS} records (${fmt(rate, 0)}/s)`, rate >= TARGET),
    );
  } finally {
    await dropDataSource(dataSource);
  }
}
