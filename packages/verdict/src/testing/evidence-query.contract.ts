import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Disposition } from '../decisions/disposition.js';
import { type RecordedDisposition, ShadowDisposition } from '../decisions/shadow-disposition.js';
import { Stage } from '../decisions/stage.js';
import { type DecisionFacts, type DecisionRecord, decisionRecord } from '../evidence/decision-record.js';
import type { EvidenceFilter } from '../evidence/evidence-filter.js';
import { evidenceCursor } from '../evidence/evidence-cursor.js';
import type { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A query under test and the recorder whose records it reads. */
export interface EvidenceQueryHarness {
  readonly recorder: EvidenceRecorder;
  readonly query: EvidenceQuery;
  close(): Promise<void>;
}

const MINUTE = 60_000;

/**
 * The behaviour every {@link EvidenceQuery} adapter must share: each filter alone and together (AND), `since`
 * inclusive and `until` exclusive, newest first with a total order for ties (correlation id, then the later stage
 * first, then id), the default and explicit limits, paging with `after` (`evidenceCursor`) through records of one
 * millisecond, each record once, alone and with other filters, a cursor `evidenceCursor` did not make refused,
 * one run in sequence order with every fact, and bad filters refused with `InvalidEvidenceFilterError`: among them a
 * capability or correlation id holding U+0000 or a lone surrogate, and a `since` or `until` outside the years 0001–9999
 * (UTC), which engines answer differently (docs/evidence.md), while the first and last instants of that range answer.
 * The suite shares one store: each test writes into a time window (or under names) of its own.
 * `setup` runs once before the suite and `close` once after it.
 *
 * @example
 * describeEvidenceQueryContract('memory', async () => {
 *   const recorder = new InMemoryEvidenceRecorder();
 *   return { recorder, query: new InMemoryEvidenceQuery(recorder), close: async () => {} };
 * });
 */
export function describeEvidenceQueryContract(
  engineLabel: string,
  setup: () => Promise<EvidenceQueryHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`EvidenceQuery contract [${engineLabel}]`, () => {
    let harness: EvidenceQueryHarness;
    let windows = 0;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });

    /** A day of its own for one test, so filters without a time bound are combined with it. */
    const window = () => {
      const start = Date.UTC(2031, 0, 1) + (windows++ * 86_400_000 + Math.floor(Math.random() * 1000) * 86_400_000);
      return {
        since: new Date(start),
        until: new Date(start + 86_400_000),
        at: (minute: number) => new Date(start + minute * MINUTE),
      };
    };
    const write = async (records: readonly DecisionRecord[]) => {
      for (const record of records) await harness.recorder.recordDecision(record);
    };
    const ids = (records: readonly DecisionRecord[]) => records.map((record) => record.id);

    it('serves each filter alone and all of them together, newest first', async () => {
      const { since, until, at } = window();
      const [alice, bob] = [
        fingerprint({ actor: 'alice', tenant: 'acme' }),
        fingerprint({ actor: 'bob', tenant: 'acme' }),
      ];
      const refund = `orders.refund.${randomUUID()}`;
      const cancel = `orders.cancel.${randomUUID()}`;
      const call = fingerprintString(`call_${randomUUID()}`);
      const r = [
        record(refund, Stage.Proposal, Disposition.Permit, at(1), { actorFingerprint: alice }),
        record(refund, Stage.Execution, Disposition.Deny, at(2), {
          actorFingerprint: alice,
          toolCallFingerprint: call,
        }),
        record(cancel, Stage.RateLimit, Disposition.Throttle, at(3), { actorFingerprint: bob }),
        record(cancel, Stage.Execution, Disposition.Deny, at(4), { actorFingerprint: bob }),
        record(refund, Stage.Execution, Disposition.Deny, at(5), { actorFingerprint: bob }),
      ];
      await write(r);
      const list = (filter: EvidenceFilter) => harness.query.list({ since, until, ...filter });

      expect(ids(await list({}))).toEqual(ids([r[4], r[3], r[2], r[1], r[0]]));
      expect(ids(await list({ capability: refund }))).toEqual(ids([r[4], r[1], r[0]]));
      expect(ids(await list({ disposition: Disposition.Deny }))).toEqual(ids([r[4], r[3], r[1]]));
      expect(ids(await list({ stage: Stage.Execution }))).toEqual(ids([r[4], r[3], r[1]]));
      expect(ids(await list({ actorFingerprint: alice }))).toEqual(ids([r[1], r[0]]));
      expect(ids(await list({ toolCallFingerprint: call }))).toEqual(ids([r[1]]));
      expect(
        ids(
          await list({
            capability: refund,
            disposition: Disposition.Deny,
            stage: Stage.Execution,
            actorFingerprint: bob,
          }),
        ),
      ).toEqual(ids([r[4]]));
      expect(await list({ capability: cancel, actorFingerprint: alice })).toEqual([]);
      // Without a time bound, names and fingerprints of their own still find exactly these records.
      expect(ids(await harness.query.list({ capability: cancel }))).toEqual(ids([r[3], r[2]]));
      expect(ids(await harness.query.list({ toolCallFingerprint: call }))).toEqual(ids([r[1]]));
    });

    it('counts since as inclusive and until as exclusive, to the millisecond', async () => {
      const { at } = window();
      const capability = `boundary.${randomUUID()}`;
      const edges = [at(10), new Date(at(10).getTime() + 1), at(20)];
      const r = edges.map((recordedAt) => record(capability, Stage.Proposal, Disposition.Permit, recordedAt));
      await write(r);

      expect(ids(await harness.query.list({ capability, since: at(10), until: at(20) }))).toEqual(ids([r[1], r[0]]));
      expect(ids(await harness.query.list({ capability, since: edges[1] }))).toEqual(ids([r[2], r[1]]));
      expect(ids(await harness.query.list({ capability, until: edges[1] }))).toEqual(ids([r[0]]));
    });

    it('orders records of the same instant by correlation id, then later stage first', async () => {
      const { at } = window();
      const capability = `ties.${randomUUID()}`;
      const [first, second] = [randomUUID(), randomUUID()].sort();
      const r = [
        record(capability, Stage.Proposal, Disposition.Permit, at(1), {}, second, 0),
        record(capability, Stage.Proposal, Disposition.Permit, at(1), {}, first, 0),
        record(capability, Stage.Execution, Disposition.Permit, at(1), {}, first, 1),
      ];
      await write(r);

      expect(ids(await harness.query.list({ capability }))).toEqual(ids([r[2], r[1], r[0]]));
    });

    it('pages with after: each record once, in list order, through a full page of one millisecond', async () => {
      const { since, until, at } = window();
      const capability = `paging.${randomUUID()}`;
      const shared = randomUUID();
      const stages = [Stage.Proposal, Stage.Approval, Stage.Execution];
      const runOf = (minute: number, correlationId = randomUUID()) =>
        stages.map((stage, sequence) =>
          record(capability, stage, Disposition.Permit, at(minute), {}, correlationId, sequence),
        );
      const r = [
        // Nine records of one millisecond: three runs, one of them written again under the same sequences.
        ...runOf(2),
        ...runOf(2, shared),
        ...runOf(2, shared),
        ...runOf(1),
        record(`${capability}.other`, Stage.Execution, Disposition.Permit, at(2)),
      ];
      await write(r);
      const whole = await harness.query.list({ capability });
      expect(whole).toHaveLength(12);

      for (const limit of [1, 2, 4, 5]) {
        const paged: DecisionRecord[] = [];
        // At most one page more than there are records: an adapter that ignores `after` lists its first page again.
        for (let after: string | undefined, pages = 0; pages <= whole.length; pages++) {
          const page = await harness.query.list({ capability, limit, after });
          paged.push(...page);
          if (page.length < limit) break;
          after = evidenceCursor(page[page.length - 1]!);
        }
        expect({ limit, listed: ids(paged) }).toEqual({ limit, listed: ids(whole) });
      }
      // With the other filters: the next page of the same filtered list.
      const filter = { since, until, capability, stage: Stage.Execution };
      const [first] = await harness.query.list({ ...filter, limit: 1 });
      expect(ids(await harness.query.list({ ...filter, after: evidenceCursor(first!) }))).toEqual(
        ids((await harness.query.list(filter)).slice(1)),
      );
      // A string `evidenceCursor` did not make reads nothing: an id, an instant, a cursor edited.
      const cursor = evidenceCursor(first!);
      for (const after of [first!.id, at(2).toISOString(), `${cursor}=`, cursor.slice(0, -1), cursor.slice(4)])
        await assert.rejects(
          harness.query.list({ capability, after }),
          (error: unknown) => {
            assert.ok(error instanceof InvalidEvidenceFilterError, `after ${JSON.stringify(after)}: ${String(error)}`);
            return true;
          },
          `after ${JSON.stringify(after)} must be refused with InvalidEvidenceFilterError`,
        );
    });

    it('returns at most 100 records by default, and at most the limit asked for', async () => {
      const { at } = window();
      const capability = `bulk.${randomUUID()}`;
      const r = Array.from({ length: 101 }, (_, i) => record(capability, Stage.Proposal, Disposition.Deny, at(i)));
      await write(r);

      const listed = await harness.query.list({ capability });
      expect(listed).toHaveLength(100);
      expect(listed[0]?.id).toBe(r[100].id);
      expect(listed[99]?.id).toBe(r[1].id);
      expect(ids(await harness.query.list({ capability, limit: 2 }))).toEqual(ids([r[100], r[99]]));
    });

    it('reads one run in sequence order with every fact, and nothing of other runs', async () => {
      const { at } = window();
      const correlationId = randomUUID();
      const capability = `run.${randomUUID()}`;
      const facts: DecisionFacts = {
        argumentsFingerprint: fingerprint({ orderId: 'ord_1' }),
        toolCallFingerprint: fingerprintString('call_1'),
        actorFingerprint: fingerprint({ actor: 'alice', tenant: 'acme' }),
        identityMatch: false,
        rateLimitLimit: 0,
        rateLimitResetAt: at(30),
      };
      // Written out of order and with an earlier clock on the later stage: sequence decides, not time or id.
      const run = [
        record(capability, Stage.Proposal, Disposition.Permit, at(3), facts, correlationId, 0),
        record(capability, Stage.TargetRefresh, Disposition.Permit, at(2), facts, correlationId, 1),
        record(capability, Stage.Execution, Disposition.Deny, at(1), facts, correlationId, 2),
      ];
      await write([run[2], record(capability, Stage.Proposal, Disposition.Permit, at(1)), run[0], run[1]]);

      const read = await harness.query.run(correlationId);
      expect(read).toEqual(run);
      expect(Object.keys(read[0] ?? {}).sort()).toEqual(Object.keys(run[0]).sort());
      expect(await harness.query.run(randomUUID())).toEqual([]);
    });

    it('lists only shadow records with shadow: true, and summarizes them per capability, stage and reason', async () => {
      const { since, until, at } = window();
      const refund = `orders.refund.${randomUUID()}`;
      const send = `payments.send.${randomUUID()}`;
      const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
      const shadow = (
        capability: string,
        stage: Stage,
        disposition: RecordedDisposition,
        minute: number,
        correlationId: string,
        sequence: number,
      ) => record(capability, stage, disposition, at(minute), {}, correlationId, sequence);
      const r = [
        // Two calls CASL would have refused at steps 3 and 9; both went on and ran.
        shadow(refund, Stage.Proposal, ShadowDisposition.WouldDeny, 1, first, 0),
        shadow(refund, Stage.Execution, ShadowDisposition.WouldDeny, 1, first, 1),
        shadow(refund, Stage.Execution, Disposition.Permit, 1, first, 2),
        shadow(refund, Stage.Proposal, ShadowDisposition.WouldDeny, 2, second, 0),
        shadow(refund, Stage.Execution, Disposition.Permit, 2, second, 1),
        // A call a shadowed provenance rule would have held for confirmation.
        shadow(send, Stage.Provenance, ShadowDisposition.WouldConfirm, 3, third, 0),
        shadow(send, Stage.Execution, Disposition.Permit, 3, third, 1),
      ];
      // A dry run (`evaluate`) of the refund CASL would refuse: listed, never summarized, since nothing went on.
      const dryRun = {
        ...shadow(refund, Stage.Proposal, ShadowDisposition.WouldDeny, 4, randomUUID(), 0),
        toolKind: ToolKind.Evaluation,
      };
      await write([...r, dryRun]);

      expect(ids(await harness.query.list({ since, until, shadow: true }))).toEqual(
        ids([dryRun, r[5], r[3], r[1], r[0]]),
      );
      expect(
        ids(await harness.query.list({ since, until, shadow: true, disposition: ShadowDisposition.WouldConfirm })),
      ).toEqual(ids([r[5]]));
      expect(ids(await harness.query.list({ since, until, disposition: ShadowDisposition.WouldDeny }))).toEqual(
        ids([dryRun, r[3], r[1], r[0]]),
      );
      assert.ok(harness.query.shadowSummary !== undefined, 'the adapter summarizes shadow records');
      const row = (capability: string, stage: Stage, disposition: RecordedDisposition, calls: number) => ({
        capability,
        stage,
        disposition,
        reason: `${stage} ${disposition}`,
        calls,
        records: calls,
      });
      const confirmSend = row(send, Stage.Provenance, ShadowDisposition.WouldConfirm, 1);
      // Most calls first; ties by capability, then stage.
      expect(await harness.query.shadowSummary({ since, until })).toEqual([
        row(refund, Stage.Proposal, ShadowDisposition.WouldDeny, 2),
        row(refund, Stage.Execution, ShadowDisposition.WouldDeny, 1),
        confirmSend,
      ]);
      expect(await harness.query.shadowSummary({ capability: send })).toEqual([confirmSend]);
      // Only the dry run is this recent.
      expect(await harness.query.shadowSummary({ since: at(4), until })).toEqual([]);
      await assert.rejects(
        harness.query.list({ shadow: true, disposition: Disposition.Deny }),
        /shadow records are would_deny or would_confirm/,
      );
      await assert.rejects(harness.query.shadowSummary({ capability: '' }), InvalidEvidenceFilterError);
    });

    it('refuses a filter it cannot answer, naming what is wrong', async () => {
      const refused: Array<[EvidenceFilter, RegExp]> = [
        [{ disposition: 'allow' as Disposition }, /disposition must be one of/],
        [{ stage: 'billing' as Stage }, /stage must be one of/],
        [{ toolCallFingerprint: 'call_Zq81LmX0' }, /toolCallFingerprint must be a SHA-256 fingerprint/],
        [{ actorFingerprint: 'A'.repeat(64) }, /actorFingerprint must be a SHA-256 fingerprint/],
        [{ capability: '' }, /capability must be/],
        [{ since: new Date('not a date') }, /since must be a valid Date/],
        [{ since: new Date(2031, 1, 1), until: new Date(2031, 1, 1) }, /since must be before until/],
        [{ limit: 0 }, /limit must be an integer from 1 to 1000/],
        [{ limit: 1001 }, /limit must be/],
        [{ limit: 2.5 }, /limit must be/],
      ];
      for (const [filter, message] of refused)
        await assert.rejects(harness.query.list(filter), (error: unknown) => {
          assert.ok(error instanceof InvalidEvidenceFilterError, `${JSON.stringify(filter)}: ${String(error)}`);
          assert.match(error.message, message);
          return true;
        });
      await assert.rejects(harness.query.run(''), InvalidEvidenceFilterError);
    });

    it('refuses text holding U+0000 or a lone surrogate, and dates outside the years 0001–9999, alike', async () => {
      const { since, until, at } = window();
      const capability = `lookups.${randomUUID()}`;
      const written = record(capability, Stage.Proposal, Disposition.Permit, at(1));
      await write([written]);
      // `shadowSummary` is optional: checked where the adapter has it (the shadow test above asks for it).
      const summarize = harness.query.shadowSummary?.bind(harness.query);
      // The error's class is the contract, not its wording: a query of your own words its refusals as it likes.
      const refused = async (lookup: () => Promise<unknown>, what: string) =>
        assert.rejects(
          lookup,
          (error: unknown) => {
            assert.ok(error instanceof InvalidEvidenceFilterError, `${what}: ${String(error)}`);
            return true;
          },
          `${what} must be refused with InvalidEvidenceFilterError`,
        );

      // No record holds either: PostgreSQL fails a comparison with U+0000 where other engines answer nothing.
      for (const [what, suffix] of [
        ['U+0000', '\u0000'],
        ['a high lone surrogate', '\ud800'],
        ['a low lone surrogate', '\udc00'],
      ] as const) {
        await refused(() => harness.query.list({ capability: `${capability}${suffix}` }), `list, ${what}`);
        if (summarize !== undefined)
          await refused(() => summarize({ capability: `${capability}${suffix}` }), `shadowSummary, ${what}`);
        await refused(() => harness.query.run(`${written.correlationId}${suffix}`), `run, ${what}`);
      }
      // SQLite compares instants as text and MariaDB's DATETIME ends with 9999: past it, engines answer apart.
      const year10000 = new Date('+010000-01-01T00:00:00.000Z');
      for (const [what, filter] of [
        ['until in the year 10000', { until: year10000 }],
        ['until at the last instant a Date holds', { until: new Date(8.64e15) }],
        ['since in this window until the year 10000', { since, until: year10000 }],
        ['since in the year 10000', { since: year10000 }],
        ['since in the year 0', { since: new Date('0000-06-01T00:00:00.000Z') }],
        ['since in the year -1', { since: new Date('-000001-01-01T00:00:00.000Z') }],
        ['until in the year 0', { until: new Date('0000-12-31T23:59:59.999Z') }],
      ] as const) {
        await refused(() => harness.query.list({ capability, ...filter }), `list, ${what}`);
        if (summarize !== undefined)
          await refused(() => summarize({ capability, ...filter }), `shadowSummary, ${what}`);
      }

      // The first and last instants of the range answer, as does the run and the window's own bounds.
      const widest = { since: new Date('0001-01-01T00:00:00.000Z'), until: new Date('9999-12-31T23:59:59.999Z') };
      expect(ids(await harness.query.list({ capability, ...widest }))).toEqual(ids([written]));
      expect(ids(await harness.query.list({ capability, since, until }))).toEqual(ids([written]));
      expect(ids(await harness.query.list({ capability, since: widest.since, until: since }))).toEqual([]);
      if (summarize !== undefined) expect(await summarize({ capability, ...widest })).toEqual([]);
      expect(ids(await harness.query.run(written.correlationId))).toEqual(ids([written]));
    });
  });
}

function record(
  capability: string,
  stage: Stage,
  disposition: RecordedDisposition,
  recordedAt: Date,
  facts: DecisionFacts = {},
  correlationId: string = randomUUID(),
  sequence = 0,
): DecisionRecord {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId,
      sequence,
      capability,
      toolKind: ToolKind.Bound,
      stage,
      disposition,
      reason: `${stage} ${disposition}`,
      recordedAt,
    },
    facts,
  );
}
