import { randomUUID } from 'node:crypto';
import { Trust } from '../context-release/trust.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { ProvenanceLedger } from '../provenance/provenance-ledger.interface.js';
import { type ProvenanceRecord, ProvenanceRecordKind } from '../provenance/provenance-record.js';
import { ProvenanceSourceKind } from '../provenance/provenance-source.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A provenance ledger under test. */
export interface ProvenanceLedgerHarness {
  readonly ledger: ProvenanceLedger;
  close(): Promise<void>;
}

const T0 = Date.UTC(2024, 1, 29, 23, 59, 59, 987);

/**
 * The behaviour every {@link ProvenanceLedger} adapter must share: records come back field for field (UTC
 * instants to the millisecond, `null`s kept), by content fingerprint and by correlation, oldest first; a
 * record's undeclared fields are never stored.
 *
 * @example
 * describeProvenanceLedgerContract('memory', async () => ({ ledger: new InMemoryProvenanceLedger(), close: async () => {} }));
 */
export function describeProvenanceLedgerContract(
  engineLabel: string,
  setup: () => Promise<ProvenanceLedgerHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`ProvenanceLedger contract [${engineLabel}]`, () => {
    let harness: ProvenanceLedgerHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const record = (overrides: Partial<ProvenanceRecord>, offset = 0): ProvenanceRecord => ({
      id: randomUUID(),
      kind: ProvenanceRecordKind.Label,
      contentFingerprint: fingerprintString(randomUUID()),
      sourceKind: ProvenanceSourceKind.Tool,
      sourceName: 'products.view',
      trust: Trust.Untrusted,
      parentFingerprint: null,
      correlationId: null,
      capability: null,
      argumentPathFingerprint: null,
      recordedAt: new Date(T0 + offset),
      ...overrides,
    });

    it('returns the labels and derivation edges of one content item, field for field, oldest first', async () => {
      const content = fingerprintString(randomUUID());
      const parent = fingerprintString(randomUUID());
      const label = record({ contentFingerprint: content });
      const edge = record(
        {
          kind: ProvenanceRecordKind.Derivation,
          contentFingerprint: content,
          parentFingerprint: parent,
          sourceKind: ProvenanceSourceKind.Agent,
          sourceName: 'agent',
        },
        1,
      );
      await harness.ledger.append([edge, label]);
      await harness.ledger.append([record({})]);

      expect(await harness.ledger.forContent(content)).toEqual([label, edge]);
    });

    it("returns one proposal's influences by correlation id", async () => {
      const correlationId = randomUUID();
      const influence = (path: string | null, offset: number) =>
        record(
          {
            kind: ProvenanceRecordKind.Influence,
            correlationId,
            capability: 'payments.send',
            argumentPathFingerprint: path === null ? null : fingerprintString(path),
          },
          offset,
        );
      const context = influence(null, 0);
      const argument = influence('recipient', 1);
      await harness.ledger.append([context, argument]);
      await harness.ledger.append([record({ kind: ProvenanceRecordKind.Influence, correlationId: randomUUID() })]);

      expect(await harness.ledger.forCorrelation(correlationId)).toEqual([context, argument]);
      expect(await harness.ledger.forCorrelation(randomUUID())).toEqual([]);
    });

    it('stores the declared fields only', async () => {
      const content = fingerprintString(randomUUID());
      const declared = record({ contentFingerprint: content });
      await harness.ledger.append([{ ...declared, text: 'raw content' } as ProvenanceRecord]);

      const [stored] = await harness.ledger.forContent(content);
      expect(stored).toEqual(declared);
      expect(JSON.stringify(stored)).not.toContain('raw content');
    });

    it('accepts an empty batch', async () => {
      await harness.ledger.append([]);
    });
  });
}
