import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { decisionRecord } from '../evidence/decision-record.js';
import type { DecisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { EvidenceKind } from '../evidence/chain-link.js';
import { type EvidenceChain, isEvidenceChain } from '../evidence/evidence-chain.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { ContextReleaser } from '../context-release/context-releaser.js';
import { DataClass } from '../context-release/data-class.js';
import { Destination } from '../context-release/destination.js';
import { ReleasePolicy } from '../context-release/release-policy.js';
import { Source, SourceKind } from '../context-release/source.js';
import { Trust } from '../context-release/trust.js';
import { type ReleaseRecord, releaseRecord } from '../evidence/release-record.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A recorder under test and a way to look behind it. */
export interface EvidenceRecorderHarness {
  readonly recorder: EvidenceRecorder;
  /** Every stored record of one correlation id, in sequence order. */
  read(correlationId: string): Promise<DecisionRecord[]>;
  /**
   * The stored rows of one correlation id as the storage holds them (column name → value). Defaults to
   * `read`, for adapters that keep records as objects.
   */
  storedRows?(correlationId: string): Promise<Array<Record<string, unknown>>>;
  /** Every stored release record of one correlation id, in any order. */
  readReleases(correlationId: string): Promise<ReleaseRecord[]>;
  /** The stored release rows of one correlation id as the storage holds them. Defaults to `readReleases`. */
  storedReleaseRows?(correlationId: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** The raw values a proposal carried; a recorder may keep their fingerprints, never the values. */
const RAW = {
  arguments: { orderId: 'ord_7f3a', cardNumber: '4111111111111111' },
  toolCallId: 'call_Zq81LmX0',
  receiptId: 'rcpt_9VvYc2HkqTQ',
};

/**
 * The behaviour every {@link EvidenceRecorder} adapter must share, for decision and release records: exact
 * round trip of every field, insertion order of decisions per correlation id, nothing stored beyond the
 * record (no payload value of a real release), no lost concurrent writes, batches written whole and in
 * order; for a recorder that is also an {@link EvidenceChain}: one gapless, verifying chain per stream, and a prune
 * whose cutoff is not a valid Date in the years 0001–9999 (UTC) refused with `InvalidEvidenceFilterError`, nothing
 * pruned (before any key is needed: the suite gives none).
 * `setup` runs once before the suite and `close` once after it.
 *
 * @example
 * describeEvidenceRecorderContract('memory', async () => {
 *   const recorder = new InMemoryEvidenceRecorder();
 *   return {
 *     recorder,
 *     read: async (id) => recorder.decisions().filter((r) => r.correlationId === id),
 *     readReleases: async (id) => recorder.releases().filter((r) => r.correlationId === id),
 *     close: async () => {},
 *   };
 * });
 */
export function describeEvidenceRecorderContract(
  engineLabel: string,
  setup: () => Promise<EvidenceRecorderHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`EvidenceRecorder contract [${engineLabel}]`, () => {
    let harness: EvidenceRecorderHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });

    it('reads back a record with every fact set, field for field', async () => {
      const record = fullRecord(randomUUID());
      await harness.recorder.recordDecision(record);

      const [stored] = await harness.read(record.correlationId);
      expect(Object.keys(stored ?? {}).sort()).toEqual(Object.keys(record).sort());
      expect(stored).toEqual(record);
      expect(stored?.recordedAt.toISOString()).toBe('2024-02-29T23:59:59.987Z');
      expect(stored?.rateLimitResetAt?.toISOString()).toBe('2024-03-01T00:00:00.001Z');
    });

    it('reads back null facts as null and false as false', async () => {
      const correlationId = randomUUID();
      const bare = decisionRecord(head(correlationId, 0), {});
      const zeroes = decisionRecord(head(correlationId, 1), {
        identityMatch: false,
        rateLimitLimit: 0,
        rateLimitRemaining: 0,
        claimAttempt: 0,
      });
      await harness.recorder.recordDecision(bare);
      await harness.recorder.recordDecision(zeroes);

      expect(await harness.read(correlationId)).toEqual([bare, zeroes]);
    });

    it('reads back every record of a correlation id in sequence order, and only those', async () => {
      const correlationId = randomUUID();
      // Ids descend so that an adapter ordering by id (or by a primary-key index) is caught.
      const records = [0, 1, 2, 3, 4].map((i) =>
        decisionRecord({ ...head(correlationId, i), id: `z-${9 - i}-${randomUUID()}` }, {}),
      );
      for (const [i, record] of records.entries()) {
        await harness.recorder.recordDecision(record);
        if (i === 2) await harness.recorder.recordDecision(decisionRecord(head(randomUUID(), i), {}));
      }

      expect((await harness.read(correlationId)).map((r) => r.id)).toEqual(records.map((r) => r.id));
    });

    it('stores no value the record does not hold, even when a caller attaches raw values to it', async () => {
      const record = fullRecord(randomUUID());
      const smuggled = { ...record, arguments: RAW.arguments, toolCallId: RAW.toolCallId, receiptId: RAW.receiptId };
      await harness.recorder.recordDecision(smuggled as DecisionRecord);

      const rows = harness.storedRows
        ? await harness.storedRows(record.correlationId)
        : await harness.read(record.correlationId);
      expect(rows).toHaveLength(1);
      expect(recordColumns(rows[0])).toEqual(Object.keys(record).sort());
      const stored = JSON.stringify(rows);
      for (const raw of [RAW.arguments.cardNumber, RAW.arguments.orderId, RAW.toolCallId, RAW.receiptId]) {
        expect(stored).not.toContain(raw);
      }
    });

    it('keeps every one of 50 concurrent writes', async () => {
      const correlationId = randomUUID();
      const records = Array.from({ length: 50 }, (_, i) => decisionRecord(head(correlationId, i), { claimAttempt: i }));
      await Promise.all(records.map((record) => harness.recorder.recordDecision(record)));

      const stored = await harness.read(correlationId);
      expect(stored).toHaveLength(50);
      expect(new Set(stored.map((r) => r.id))).toEqual(new Set(records.map((r) => r.id)));
    });

    it('writes a batch of records in order, all of them', async () => {
      const correlationId = randomUUID();
      const records = [0, 1, 2].map((i) => decisionRecord(head(correlationId, i), { claimAttempt: i }));
      if (harness.recorder.recordDecisions) await harness.recorder.recordDecisions(records);
      else for (const record of records) await harness.recorder.recordDecision(record);

      expect(await harness.read(correlationId)).toEqual(records);
    });

    describe('hash chains', () => {
      it('chains every record of a stream without gap or fork, and the chain verifies', async () => {
        const chain = harness.recorder as EvidenceRecorder & Partial<EvidenceChain>;
        if (!isEvidenceChain(chain)) return;
        const stream = `tenant:${randomUUID()}`;
        const records = Array.from({ length: 30 }, (_, i) =>
          decisionRecord({ ...head(randomUUID(), 0), stream }, { claimAttempt: i }),
        );
        await Promise.all(records.map((record) => chain.recordDecision(record)));
        await chain.seal();

        const verdict = (await chain.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream);
        expect(verdict).toMatchObject({
          intact: true,
          firstBadSequence: null,
          records: 30,
          verifiedThrough: 30,
          unsealed: 0,
        });
      });

      it('keeps streams apart: each has its own sequence from 1', async () => {
        const chain = harness.recorder as EvidenceRecorder & Partial<EvidenceChain>;
        if (!isEvidenceChain(chain)) return;
        const [a, b] = [`tenant:${randomUUID()}`, `tenant:${randomUUID()}`];
        for (const [i, stream] of [a, b, a].entries())
          await chain.recordDecision(decisionRecord({ ...head(randomUUID(), i), stream }, {}));
        await chain.seal();

        const verdicts = (await chain.verify()).filter((v) => v.stream === a || v.stream === b);
        expect(verdicts.map((v) => [v.stream === a ? 'a' : 'b', v.intact, v.verifiedThrough]).sort()).toEqual([
          ['a', true, 2],
          ['b', true, 1],
        ]);
      });

      it('refuses a prune cutoff outside the years 0001–9999 (UTC) with InvalidEvidenceFilterError, pruning nothing', async () => {
        const chain = harness.recorder as EvidenceRecorder & Partial<EvidenceChain>;
        if (!isEvidenceChain(chain)) return;
        const kept = decisionRecord(head(randomUUID(), 0), {});
        await chain.recordDecision(kept);
        // Past 9999, SQLite compares instants as text and MariaDB's DATETIME ends: engines found other cut points.
        for (const [what, before] of [
          ['an invalid Date', new Date(Number.NaN)],
          ['the year 0', new Date('0000-12-31T23:59:59.999Z')],
          ['the year -1', new Date('-000001-01-01T00:00:00.000Z')],
          ['the year 10000', new Date('+010000-01-01T00:00:00.000Z')],
          ['the last instant a Date holds', new Date(8.64e15)],
        ] as const)
          await assert.rejects(
            chain.prune(before),
            (error: unknown) => {
              assert.ok(error instanceof InvalidEvidenceFilterError, `prune before ${what}: ${String(error)}`);
              return true;
            },
            `a prune before ${what} must be refused with InvalidEvidenceFilterError`,
          );
        expect(await harness.read(kept.correlationId)).toEqual([kept]);
      });
    });

    describe('release records', () => {
      it('reads back a permitted and a denied release, field for field', async () => {
        const correlationId = randomUUID();
        const permitted = fullRelease(correlationId);
        const denied = releaseRecord({
          ...fullRelease(correlationId),
          id: randomUUID(),
          sourceKind: SourceKind.External,
          trust: Trust.Untrusted,
          disposition: Disposition.Deny,
          reason: 'detector_fired:EMAIL',
          releasedPathsFingerprint: fingerprint([]),
          transformedPathsFingerprint: fingerprint([]),
          transformationCount: 0,
          payloadFingerprint: fingerprint({}),
        });
        await harness.recorder.recordRelease(permitted);
        await harness.recorder.recordRelease(denied);

        const stored = byId(await harness.readReleases(correlationId));
        expect(stored.map((record) => Object.keys(record).sort())).toEqual([
          Object.keys(permitted).sort(),
          Object.keys(denied).sort(),
        ]);
        expect(stored).toEqual(byId([permitted, denied]));
        expect(stored.find((record) => record.id === permitted.id)?.recordedAt.toISOString()).toBe(
          '2024-02-29T23:59:59.987Z',
        );
      });

      it('stores no value the record does not hold, even when a caller attaches the payload to it', async () => {
        const record = fullRelease(randomUUID());
        await harness.recorder.recordRelease({ ...record, payload: RAW.arguments } as ReleaseRecord);

        const rows = harness.storedReleaseRows
          ? await harness.storedReleaseRows(record.correlationId)
          : await harness.readReleases(record.correlationId);
        expect(rows).toHaveLength(1);
        expect(recordColumns(rows[0])).toEqual(Object.keys(record).sort());
        expect(JSON.stringify(rows)).not.toContain(RAW.arguments.cardNumber);
      });

      it('never stores a payload value of a real release: released, redacted, unreleased or denied', async () => {
        const correlationId = randomUUID();
        const marker = `mk${randomUUID().replaceAll('-', '')}`;
        const releaser = new ContextReleaser({ policies: [RELEASE_ROUTE], recorder: harness.recorder });
        const payload = {
          name: `${marker}-name`,
          note: `${marker}-note`,
          hidden: { deep: `${marker}-hidden` },
          [`${marker}-key`]: 1,
        };
        const release = (destination: Destination) =>
          releaser
            .release(payload)
            .source(RELEASE_ROUTE.source)
            .trust(Trust.Trusted)
            .classify(DataClass.Pii)
            .only(['name', 'note'])
            .redact(['note'])
            .correlate(correlationId)
            .to(destination);
        const permitted = await release(RELEASE_ROUTE.destination);
        const denied = await release(Destination.connection('unregistered', 'nowhere'));
        expect([permitted.permitted, denied.permitted]).toEqual([true, false]);
        expect(JSON.stringify(permitted.payload)).toContain(marker);

        const rows = harness.storedReleaseRows
          ? await harness.storedReleaseRows(correlationId)
          : await harness.readReleases(correlationId);
        expect(rows).toHaveLength(2);
        expect(JSON.stringify(rows)).not.toContain(marker);
      });

      it('keeps every one of 50 concurrent writes', async () => {
        const correlationId = randomUUID();
        const records = Array.from({ length: 50 }, (_, i) =>
          releaseRecord({ ...fullRelease(correlationId), id: randomUUID(), transformationCount: i }),
        );
        await Promise.all(records.map((record) => harness.recorder.recordRelease(record)));

        const stored = await harness.readReleases(correlationId);
        expect(stored).toHaveLength(50);
        expect(new Set(stored.map((r) => r.id))).toEqual(new Set(records.map((r) => r.id)));
      });
    });
  });
}

/** The route the release-record contract releases through. */
const RELEASE_ROUTE = ReleasePolicy.route(
  Source.application('contract-profile'),
  Destination.connection('contract-llm', 'local-machine'),
).allow({
  classes: [DataClass.Pii],
  trust: [Trust.Trusted],
});

function fullRelease(correlationId: string): ReleaseRecord {
  return releaseRecord({
    id: randomUUID(),
    correlationId,
    sourceKind: SourceKind.Application,
    sourceName: 'customer-profile',
    destinationConnection: 'ollama-local',
    destinationTrustZone: 'local-machine',
    classification: DataClass.Pii,
    trust: Trust.Trusted,
    disposition: Disposition.Permit,
    reason: 'released',
    requestedPathsFingerprint: fingerprint(['email', 'orders.*.status']),
    releasedPathsFingerprint: fingerprint(['email', 'orders.0.status']),
    transformedPathsFingerprint: fingerprint(['email']),
    transformNamesFingerprint: fingerprint(['redact']),
    transformationCount: 1,
    payloadFingerprint: fingerprint({ email: '[REDACTED]', orders: [{ status: 'shipped' }] }),
    recordedAt: new Date('2024-02-29T23:59:59.987Z'),
  });
}

function byId<T extends { id: string }>(records: T[]): T[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The required head of a record; `tick` orders records of one correlation id by time. */
function head(correlationId: string, tick: number) {
  return {
    id: randomUUID(),
    correlationId,
    sequence: tick,
    capability: 'orders.cancel',
    toolKind: ToolKind.Bound,
    stage: Stage.Proposal,
    disposition: Disposition.Deny,
    reason: 'Actor cannot cancel order: not the owner',
    recordedAt: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 100) + tick),
  };
}

function fullRecord(correlationId: string): DecisionRecord {
  const identity = fingerprint({
    capability: 'orders.cancel',
    target_policy: 'refresh',
    identity: { orderId: RAW.arguments.orderId },
  });
  return decisionRecord(
    {
      ...head(correlationId, 0),
      stage: Stage.ExecutionClaim,
      disposition: Disposition.Permit,
      reason: 'Ünïcode reason ✓ with "quotes" and \'apostrophes\'',
      recordedAt: new Date('2024-02-29T23:59:59.987Z'),
    },
    {
      argumentsFingerprint: fingerprint(RAW.arguments),
      toolCallFingerprint: fingerprintString(RAW.toolCallId),
      actorFingerprint: fingerprint({ actor: { customerId: 72 }, tenant: 'acme' }),
      targetPolicy: 'refresh',
      targetStrategy: 'order-by-id',
      proposalIdentityFingerprint: identity,
      executionIdentityFingerprint: identity,
      identityMatch: true,
      approvalPhase: 'consume',
      approvalOutcome: 'consumed',
      receiptFingerprint: fingerprintString(RAW.receiptId),
      rateLimitKeyFingerprint: fingerprint({ capability: 'orders.cancel', binding: { customer: 72 } }),
      rateLimitLimit: 5,
      rateLimitRemaining: 4,
      rateLimitResetAt: new Date('2024-03-01T00:00:00.001Z'),
      claimFingerprint: fingerprint({
        capability: 'orders.cancel',
        policy: 'once',
        binding: { orderId: RAW.arguments.orderId },
      }),
      claimStatus: 'claimed',
      claimAttempt: 2,
    },
  );
}

/** Columns an adapter keeps for itself that hold nothing of the record: the seal's pending mark (ADR 0062). */
const BOOKKEEPING_COLUMNS = new Set(['link_pending']);

/** A stored row's columns as record fields. */
function recordColumns(row: object | undefined): string[] {
  return Object.keys(row ?? {})
    .filter((column) => !BOOKKEEPING_COLUMNS.has(column))
    .map(camelCase)
    .sort();
}

function camelCase(column: string): string {
  return column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
