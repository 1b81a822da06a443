// EvidenceQuery on PostgreSQL at BENCH_EVIDENCE_ROWS decision records (default 1,000,000): each filter with
// the indexes of verdictMigrations, then the same queries once the index serving them is dropped (the
// baseline: what a lookup cost before ADR 0023), in the same run. Target (issue 13): every filter served by an
// index, a tool-call lookup no longer a sequential scan.
import 'reflect-metadata';
import { fingerprintString } from '@verdict/nestjs';
import { TypeOrmEvidenceQuery, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, seedTrafficShapedEvidence } from '@verdict/testing-kit';
import { skipped, table, target } from './report.js';
import { fmt, percentile, timeCalls } from './stats.js';

const ROWS = Number(process.env.BENCH_EVIDENCE_ROWS ?? 1_000_000);
const CALLS = Number(process.env.BENCH_EVIDENCE_CALLS ?? 30);
const url = process.env.VERDICT_TEST_POSTGRES_URL;
if (!url) {
  skipped('postgres', 'VERDICT_TEST_POSTGRES_URL is not set');
  process.exit(0);
}

const dataSource = await openDataSource(
  { name: 'postgres', url },
  { entities: verdictEntities, migrations: verdictMigrations },
);
try {
  console.log(`seeding ${ROWS} decision records ...`);
  await seedTrafficShapedEvidence(dataSource, ROWS, 20_000);

  const query = new TypeOrmEvidenceQuery(dataSource);
  const pick = (i) => 1 + ((i * 7919) % ROWS);
  const cases = [
    [
      'tool-call fingerprint',
      'idx_verdict_decision_records_tool_call',
      (i) => ({ toolCallFingerprint: fingerprintString(`call_${pick(i)}`) }),
    ],
    [
      'actor fingerprint',
      'idx_verdict_decision_records_actor_time',
      (i) => ({ actorFingerprint: fingerprintString(`actor_${pick(i) % 20000}`) }),
    ],
    ['capability', 'idx_verdict_decision_records_capability_time', () => ({ capability: 'orders.refund' })],
    ['disposition', 'idx_verdict_decision_records_disposition_time', () => ({ disposition: 'throttle' })],
    ['stage', 'idx_verdict_decision_records_stage_time', () => ({ stage: 'rate_limit' })],
  ];
  const measure = async (filterOf) => {
    await timeCalls((i) => query.list(filterOf(i + 1000)), 3);
    const samples = await timeCalls((i) => query.list(filterOf(i)), CALLS);
    return { p50: percentile(samples, 50) / 1000, p95: percentile(samples, 95) / 1000 };
  };
  const indexed = [];
  for (const [, , filterOf] of cases) indexed.push(await measure(filterOf));
  const rows = {};
  const targets = [];
  for (const [i, [name, index, filterOf]] of cases.entries()) {
    await dataSource.query(`DROP INDEX "${index}"`);
    const scanned = await measure(filterOf);
    const { p50, p95 } = indexed[i];
    rows[name] = {
      indexed_p50_ms: fmt(p50, 2),
      indexed_p95_ms: fmt(p95, 2),
      without_index_p50_ms: fmt(scanned.p50, 1),
      without_index_p95_ms: fmt(scanned.p95, 1),
      'ratio (p50)': fmt(scanned.p50 / p50, 0),
    };
    // A fingerprint lookup without its index is a sequential scan: the index must make it at least 10x faster.
    const floor = i < 2 ? 10 : 1;
    targets.push(
      target(
        `${name}: with its index >= ${floor}x faster at p50 (${fmt(scanned.p50 / p50, 1)}x)`,
        scanned.p50 / p50 >= floor,
      ),
    );
  }
  table(`EvidenceQuery.list on PostgreSQL, ${ROWS} rows, ${CALLS} calls each (ms)`, rows);
  for (const line of targets) console.log(line);
} finally {
  await dropDataSource(dataSource);
}
