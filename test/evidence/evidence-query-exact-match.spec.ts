import { describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceQuery,
  type EvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  decisionRecord,
} from '@verdict/nestjs';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  columnCollations,
  databaseEngines,
  onOwnRunner,
  tableDefaultCollations,
  withDataSource,
} from '@verdict/testing-kit';
import { v7 } from 'uuid';
import { CompareDecisionRecordsExactly1797014000000 } from '../../packages/verdict/src/typeorm/migrations/1797014000000-compare-decision-records-exactly.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const AT = new Date('2031-03-01T10:00:00.000Z');

/** A shadow refusal of `capability` for `reason`, one record of a run of its own. */
const refusal = (capability: string, reason: string, correlationId = v7()): DecisionRecord =>
  decisionRecord(
    {
      id: v7(),
      correlationId,
      sequence: 0,
      capability,
      toolKind: 'bound',
      stage: 'proposal',
      disposition: 'would_deny',
      reason,
      recordedAt: AT,
    },
    {},
  );

/** Records whose capability, reason or correlation id differ from another's only in case or a trailing space. */
function lookalikes() {
  const exact = refusal('orders.refund', 'not the owner');
  return {
    exact,
    records: [
      exact,
      refusal('Orders.Refund', 'Not the owner'),
      refusal('orders.refund ', 'not the owner '),
      refusal('orders.refund', 'NOT THE OWNER', exact.correlationId.toUpperCase()),
    ],
  };
}

/** What each lookup finds: the capabilities, reasons or correlation ids of the records it returns. */
async function lookups(recorder: EvidenceRecorder, query: Required<EvidenceQuery>) {
  const { exact, records } = lookalikes();
  for (const record of records) await recorder.recordDecision(record);
  const capabilities = async (capability: string) =>
    (await query.list({ capability })).map((record) => record.capability).sort();
  const run = async (correlationId: string) => (await query.run(correlationId)).map((record) => record.correlationId);
  return {
    capability: await capabilities('orders.refund'),
    upperCapability: await capabilities('ORDERS.REFUND'),
    paddedCapability: await capabilities('orders.refund '),
    run: await run(exact.correlationId),
    upperRun: await run(exact.correlationId.toUpperCase()),
    paddedRun: await run(`${exact.correlationId} `),
    summary: (await query.shadowSummary({ capability: 'orders.refund' }))
      .map((row) => [row.reason, row.calls, row.records])
      .sort(),
  };
}

/** Each lookup finds the records of its own value only: the exact one, never its case or trailing-space variant. */
function exactLookups(correlationId: string) {
  return {
    capability: ['orders.refund', 'orders.refund'],
    upperCapability: [],
    paddedCapability: ['orders.refund '],
    run: [correlationId],
    upperRun: [correlationId.toUpperCase()],
    paddedRun: [],
    summary: [
      ['NOT THE OWNER', 1, 1],
      ['not the owner', 1, 1],
    ],
  };
}

describe('EvidenceQuery matches exactly [memory]', () => {
  it('finds a capability, a run and a reason by its exact value, never by a variant in another case or with a trailing space', async () => {
    const recorder = new InMemoryEvidenceRecorder();
    const result = await lookups(recorder, new InMemoryEvidenceQuery(recorder));

    expect(result).toEqual(exactLookups(result.run[0]!));
  });
});

for (const engine of databaseEngines()) {
  describe(`EvidenceQuery matches exactly [${engine.name}]`, () => {
    it('finds a capability, a run and a reason by its exact value, never by a variant in another case or with a trailing space', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const result = await lookups(new TypeOrmEvidenceRecorder(dataSource), new TypeOrmEvidenceQuery(dataSource));

        expect(result).toEqual(exactLookups(result.run[0]!));
      });
    });

    it('CompareDecisionRecordsExactly keeps the records on down and up, and matches exactly after up', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource);
        const query = new TypeOrmEvidenceQuery(dataSource);
        const record = refusal('orders.refund', 'not the owner');
        await recorder.recordDecision(record);
        const migration = new CompareDecisionRecordsExactly1797014000000();

        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));
        const afterDown = await columnCollations(dataSource, TABLE, COMPARED_COLUMNS);
        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));

        expect(afterDown).toEqual(
          engine.name === 'mariadb' ? await tableDefaultCollations(dataSource, TABLE, COMPARED_COLUMNS) : [],
        );
        expect(await columnCollations(dataSource, TABLE, COMPARED_COLUMNS)).toEqual(
          engine.name === 'mariadb' ? COMPARED_COLUMNS.map((column) => [column, 'utf8mb4_nopad_bin']) : [],
        );
        expect(await query.run(record.correlationId)).toEqual([record]);
        expect(await query.list({ capability: 'orders.refund' })).toEqual([record]);
        expect(await query.list({ capability: 'Orders.Refund' })).toEqual([]);
      });
    });
  });
}

const TABLE = 'verdict_decision_records';

/** The columns the migration collates, by name. */
const COMPARED_COLUMNS = [
  'actor_fingerprint',
  'capability',
  'correlation_id',
  'disposition',
  'reason',
  'stage',
  'tool_call_fingerprint',
  'tool_kind',
];
