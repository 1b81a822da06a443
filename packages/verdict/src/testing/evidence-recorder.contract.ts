import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import { decisionRecord } from '../evidence/decision-record.js';
import type { DecisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';

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
  close(): Promise<void>;
}

/** The raw values a proposal carried; a recorder may keep their fingerprints, never the values. */
const RAW = {
  arguments: { orderId: 'ord_7f3a', cardNumber: '4111111111111111' },
  toolCallId: 'call_Zq81LmX0',
  receiptId: 'rcpt_9VvYc2HkqTQ',
};

/**
 * The behaviour every {@link EvidenceRecorder} adapter must share: exact round trip of every field,
 * insertion order per correlation id, nothing stored beyond the record, no lost concurrent writes.
 * `setup` runs once before the suite and `close` once after it.
 *
 * @example
 * describeEvidenceRecorderContract('memory', async () => {
 *   const recorder = new InMemoryEvidenceRecorder();
 *   return { recorder, read: async (id) => recorder.decisions().filter((r) => r.correlationId === id), close: async () => {} };
 * });
 */
export function describeEvidenceRecorderContract(engineLabel: string, setup: () => Promise<EvidenceRecorderHarness>): void {
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
      const zeroes = decisionRecord(head(correlationId, 1), { identityMatch: false, rateLimitLimit: 0, rateLimitRemaining: 0, claimAttempt: 0 });
      await harness.recorder.recordDecision(bare);
      await harness.recorder.recordDecision(zeroes);

      expect(await harness.read(correlationId)).toEqual([bare, zeroes]);
    });

    it('reads back every record of a correlation id in sequence order, and only those', async () => {
      const correlationId = randomUUID();
      // Ids descend so that an adapter ordering by id (or by a primary-key index) is caught.
      const records = [0, 1, 2, 3, 4].map((i) => decisionRecord({ ...head(correlationId, i), id: `z-${9 - i}-${randomUUID()}` }, {}));
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

      const rows = harness.storedRows ? await harness.storedRows(record.correlationId) : await harness.read(record.correlationId);
      expect(rows).toHaveLength(1);
      expect(
        Object.keys(rows[0] ?? {})
          .map(camelCase)
          .sort(),
      ).toEqual(Object.keys(record).sort());
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
  });
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
  const identity = fingerprint({ capability: 'orders.cancel', target_policy: 'refresh', identity: { orderId: RAW.arguments.orderId } });
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
      claimFingerprint: fingerprint({ capability: 'orders.cancel', policy: 'once', binding: { orderId: RAW.arguments.orderId } }),
      claimStatus: 'claimed',
      claimAttempt: 2,
    },
  );
}

function camelCase(column: string): string {
  return column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
