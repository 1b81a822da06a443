import { describe, expect, it } from '@jest/globals';
import { checkedEvidenceFilter, evidenceCursor, fingerprintString, type EvidenceFilter } from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, seedTrafficShapedEvidence, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { evidenceListQuery, evidenceRunQuery } from '../../packages/verdict/src/typeorm/typeorm-evidence-query.js';

const ROWS = 50_000;
const postgres = databaseEngines().find((engine) => engine.name === 'postgres');

/**
 * 50,000 decision records shaped like traffic (what operators look for is rare: with uniform values the planner
 * may rightly walk the time index and filter; a rare value is where an index of its own matters), and as many
 * receipts, one a minute.
 */
async function seed(dataSource: DataSource): Promise<void> {
  await seedTrafficShapedEvidence(dataSource, ROWS, 2_000);
  await dataSource.query(`
    INSERT INTO verdict_approval_receipts
      (id, tool_call_id, capability, binding_fingerprint, status, reason, expires_at, created_at, updated_at)
    SELECT 'rcpt_' || i, 'call_' || i, 'orders.refund', encode(sha256(('binding_' || i)::bytea), 'hex'), 'consumed', '',
      timestamptz '2031-01-01 00:00:00+00' + i * interval '1 minute', now(), now()
    FROM generate_series(1, ${ROWS}) AS i`);
  await dataSource.query('ANALYZE verdict_approval_receipts');
}

/** Every index a plan reads (Index Scan, Index Only Scan, Bitmap Index Scan), from EXPLAIN (FORMAT JSON). */
async function indexesUsed(dataSource: DataSource, sql: string, parameters: unknown[]): Promise<string[]> {
  const [{ 'QUERY PLAN': plan }] = await dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
  const names: string[] = [];
  const walk = (node: { 'Index Name'?: string; Plans?: unknown[] }) => {
    if (node['Index Name'] !== undefined) names.push(node['Index Name']);
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  walk(plan[0].Plan);
  return names;
}

/** The same EXPLAIN with `index` dropped inside a transaction that is rolled back. */
async function indexesUsedWithout(
  dataSource: DataSource,
  index: string,
  sql: string,
  parameters: unknown[],
): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.startTransaction();
  try {
    await queryRunner.query(`DROP INDEX "${index}"`);
    const [{ 'QUERY PLAN': plan }] = await queryRunner.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
    return JSON.stringify(plan).match(/idx_verdict_[a-z_]+/g) ?? [];
  } finally {
    await queryRunner.rollbackTransaction();
    await queryRunner.release();
  }
}

const list = (dataSource: DataSource, filter: EvidenceFilter) =>
  evidenceListQuery(dataSource, checkedEvidenceFilter(filter)).getQueryAndParameters();
const expiredBefore = new Date(Date.UTC(2031, 0, 1, 6)); // the first 360 of 50,000 receipts
/** The cursor of seeded record 36,000 (ten hours in), as the last record of a page names it. */
const pageEnd = evidenceCursor({
  recordedAt: new Date(Date.UTC(2031, 0, 1, 10)),
  correlationId: 'c9000',
  sequence: 0,
  id: 'r36000',
});

const CASES: Array<[string, string, (dataSource: DataSource) => [string, unknown[]]]> = [
  [
    'a tool-call fingerprint',
    'idx_verdict_decision_records_tool_call',
    (ds) => list(ds, { toolCallFingerprint: fingerprintString('call_31337') }),
  ],
  [
    'an actor fingerprint',
    'idx_verdict_decision_records_actor_time',
    (ds) => list(ds, { actorFingerprint: fingerprintString('actor_42') }),
  ],
  ['a capability', 'idx_verdict_decision_records_capability_time', (ds) => list(ds, { capability: 'orders.refund' })],
  ['a disposition', 'idx_verdict_decision_records_disposition_time', (ds) => list(ds, { disposition: 'throttle' })],
  ['a stage', 'idx_verdict_decision_records_stage_time', (ds) => list(ds, { stage: 'rate_limit' })],
  [
    'a time range',
    'idx_verdict_decision_records_time',
    (ds) => list(ds, { since: new Date(Date.UTC(2031, 0, 1, 2)), until: new Date(Date.UTC(2031, 0, 1, 3)) }),
  ],
  ['the next page (a cursor)', 'idx_verdict_decision_records_time', (ds) => list(ds, { after: pageEnd })],
  [
    'a capability, the next page',
    'idx_verdict_decision_records_capability_time',
    (ds) => list(ds, { capability: 'orders.refund', after: pageEnd }),
  ],
  [
    'a correlation id (one run)',
    'idx_verdict_decision_records_correlation',
    (ds) => evidenceRunQuery(ds, 'c4242').getQueryAndParameters(),
  ],
  [
    'receipt expiry (what pruning selects)',
    'idx_verdict_approval_receipts_expires_at',
    () => ['SELECT id FROM verdict_approval_receipts WHERE expires_at < $1', [expiredBefore]],
  ],
  [
    'receipt expiry (what pruning deletes)',
    'idx_verdict_approval_receipts_expires_at',
    () => ['DELETE FROM verdict_approval_receipts WHERE expires_at < $1', [expiredBefore]],
  ],
];

(postgres === undefined ? describe.skip : describe)('evidence indexes [postgres, EXPLAIN]', () => {
  it(`serves every EvidenceQuery filter and receipt expiry from an index at ${ROWS} rows, and the plan changes without it`, async () => {
    await withDataSource(
      postgres!,
      { entities: verdictEntities, migrations: verdictMigrations },
      async (dataSource) => {
        await seed(dataSource);
        for (const [filter, index, query] of CASES) {
          const [sql, parameters] = query(dataSource);
          expect({ filter, indexes: await indexesUsed(dataSource, sql, parameters) }).toEqual({
            filter,
            indexes: expect.arrayContaining([index]),
          });
          // The assertion is not vacuous: without this index the planner uses another plan.
          expect({ filter, indexes: await indexesUsedWithout(dataSource, index, sql, parameters) }).toEqual({
            filter,
            indexes: expect.not.arrayContaining([index]),
          });
        }
      },
    );
  });
});
