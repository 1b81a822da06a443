import { describe, expect, it } from '@jest/globals';
import {
  type DecisionRecord,
  type EvidenceFilter,
  type EvidenceQuery,
  type EvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  type ShadowSummaryFilter,
  type ShadowSummaryRow,
  decisionRecord,
  fingerprintString,
} from '@verdict/nestjs';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { v7 } from 'uuid';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const T0 = Date.UTC(2031, 4, 1, 10);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const ALICE = fingerprintString('alice');
const BOB = fingerprintString('bob');

/** Three records that differ in every field a filter reads, named by their reason. */
function records(): DecisionRecord[] {
  const record = (
    reason: string,
    capability: string,
    stage: DecisionRecord['stage'],
    disposition: DecisionRecord['disposition'],
    actorFingerprint: string,
    seconds: number,
  ) =>
    decisionRecord(
      {
        id: v7(),
        correlationId: v7(),
        sequence: 0,
        capability,
        toolKind: 'bound',
        stage,
        disposition,
        reason,
        recordedAt: at(seconds),
      },
      { actorFingerprint, toolCallFingerprint: fingerprintString(`call-${reason}`) },
    );
  return [
    record('a', 'orders.refund', 'proposal', 'would_deny', ALICE, 0),
    record('b', 'orders.cancel', 'execution', 'permit', BOB, 10),
    record('c', 'orders.refund', 'execution', 'would_confirm', BOB, 20),
  ];
}

/** What a call answers, one `show` per row, or the error it refused with. */
async function outcome<T>(call: Promise<readonly T[]>, show: (row: T) => string): Promise<string[] | string> {
  try {
    return (await call).map(show);
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

const reason = (record: DecisionRecord) => record.reason;
const disposition = (row: ShadowSummaryRow) => row.disposition;

const LIST_FIELDS =
  'the fields are capability, disposition, shadow, stage, actorFingerprint, toolCallFingerprint, since, until, limit, after';
const SUMMARY_FIELDS = 'the fields are capability, since, until';

/** Filters with a key `list` or `shadowSummary` does not have, or that are no object of fields at all. */
async function refusals(recorder: EvidenceRecorder, query: Required<EvidenceQuery>) {
  const [a] = records();
  for (const record of records()) await recorder.recordDecision(record);
  const list = (filter: unknown) => outcome(query.list(filter as EvidenceFilter), reason);
  const summary = (filter: unknown) => outcome(query.shadowSummary(filter as ShadowSummaryFilter), disposition);
  return {
    correlationId: await list({ correlationId: a!.correlationId }),
    stream: await list({ stream: 'tenant:x' }),
    actor: await list({ actor: ALICE }),
    beside: await list({ capability: 'orders.refund', tenant: 'acme' }),
    null: await list(null),
    array: await list([]),
    string: await list('orders.refund'),
    summaryDisposition: await summary({ disposition: 'would_confirm' }),
    summaryStage: await summary({ capability: 'orders.refund', stage: 'proposal' }),
    summaryNull: await summary(null),
  };
}

const REFUSED = {
  correlationId: `InvalidEvidenceFilterError: unknown filter field "correlationId": ${LIST_FIELDS}`,
  stream: `InvalidEvidenceFilterError: unknown filter field "stream": ${LIST_FIELDS}`,
  actor: `InvalidEvidenceFilterError: unknown filter field "actor": ${LIST_FIELDS}`,
  beside: `InvalidEvidenceFilterError: unknown filter field "tenant": ${LIST_FIELDS}`,
  null: expect.stringMatching(/^InvalidEvidenceFilterError: a filter must be an object of capability, .*, not null$/),
  array: expect.stringMatching(/^InvalidEvidenceFilterError: a filter must be an object of .*, not an array$/),
  string: expect.stringMatching(/^InvalidEvidenceFilterError: a filter must be an object of .*, not a string$/),
  summaryDisposition: `InvalidEvidenceFilterError: unknown filter field "disposition": ${SUMMARY_FIELDS}`,
  summaryStage: `InvalidEvidenceFilterError: unknown filter field "stage": ${SUMMARY_FIELDS}`,
  summaryNull: 'InvalidEvidenceFilterError: a filter must be an object of capability, since, until, not null',
};

/**
 * A query DTO (`ValidationPipe({ transform: true })`) with a property of its own that was not sent: declared, it is an
 * own key set to `undefined`, which is no filter.
 */
class ListQuery {
  page?: number = undefined;
  constructor(readonly capability?: string) {}
}

/** Every documented field, alone and combined, and a filter whose unused fields are `undefined` (as the CLI's or a DTO's). */
async function answers(recorder: EvidenceRecorder, query: Required<EvidenceQuery>) {
  for (const record of records()) await recorder.recordDecision(record);
  const list = (filter: EvidenceFilter) => outcome(query.list(filter), reason);
  const summary = (filter: ShadowSummaryFilter) => outcome(query.shadowSummary(filter), disposition);
  return {
    none: await list({}),
    undefinedFields: await list({ capability: undefined, disposition: undefined, since: undefined, limit: undefined }),
    unsetDtoField: await list(new ListQuery('orders.refund') as EvidenceFilter),
    capability: await list({ capability: 'orders.refund' }),
    disposition: await list({ disposition: 'permit' }),
    shadow: await list({ shadow: true }),
    stage: await list({ stage: 'execution' }),
    actorFingerprint: await list({ actorFingerprint: BOB }),
    toolCallFingerprint: await list({ toolCallFingerprint: fingerprintString('call-a') }),
    since: await list({ since: at(10) }),
    until: await list({ until: at(10) }),
    limit: await list({ limit: 1 }),
    combined: await list({ capability: 'orders.refund', stage: 'execution', actorFingerprint: BOB, since: at(0) }),
    combinedShadow: await list({ shadow: true, capability: 'orders.refund', until: at(20), limit: 5 }),
    summary: await summary({}),
    summaryCombined: await summary({ capability: 'orders.refund', since: at(10), until: at(30) }),
    summaryUndefined: await summary({ capability: undefined, since: undefined }),
  };
}

const ANSWERED = {
  none: ['c', 'b', 'a'],
  undefinedFields: ['c', 'b', 'a'],
  unsetDtoField: ['c', 'a'],
  capability: ['c', 'a'],
  disposition: ['b'],
  shadow: ['c', 'a'],
  stage: ['c', 'b'],
  actorFingerprint: ['c', 'b'],
  toolCallFingerprint: ['a'],
  since: ['c', 'b'],
  until: ['a'],
  limit: ['c'],
  combined: ['c'],
  combinedShadow: ['a'],
  summary: ['would_confirm', 'would_deny'],
  summaryCombined: ['would_confirm'],
  summaryUndefined: ['would_confirm', 'would_deny'],
};

describe('EvidenceQuery filter fields [memory]', () => {
  it('refuses a filter with an unknown field, or no object of fields, naming it and the fields it has', async () => {
    const recorder = new InMemoryEvidenceRecorder();

    expect(await refusals(recorder, new InMemoryEvidenceQuery(recorder))).toEqual(REFUSED);
  });

  it('answers every documented field, alone and combined, and ignores a field set to undefined', async () => {
    const recorder = new InMemoryEvidenceRecorder();

    expect(await answers(recorder, new InMemoryEvidenceQuery(recorder))).toEqual(ANSWERED);
  });
});

for (const engine of databaseEngines()) {
  describe(`EvidenceQuery filter fields [${engine.name}]`, () => {
    it('refuses a filter with an unknown field, or no object of fields, naming it and the fields it has', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const result = await refusals(new TypeOrmEvidenceRecorder(dataSource), new TypeOrmEvidenceQuery(dataSource));

        expect(result).toEqual(REFUSED);
      });
    });

    it('answers every documented field, alone and combined, and ignores a field set to undefined', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const result = await answers(new TypeOrmEvidenceRecorder(dataSource), new TypeOrmEvidenceQuery(dataSource));

        expect(result).toEqual(ANSWERED);
      });
    });
  });
}
