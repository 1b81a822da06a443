import { randomUUID } from 'node:crypto';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { taintTenantKey } from '../provenance/taint/taint-tenant-key.js';
import type { TaintLedger } from '../provenance/taint/taint-ledger.interface.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A taint ledger under test. */
export interface TaintLedgerHarness {
  readonly ledger: TaintLedger;
  close(): Promise<void>;
}

const T0 = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 987));
const at = (ms: number) => new Date(T0.getTime() + ms);

/**
 * The behaviour every {@link TaintLedger} adapter must share (docs/provenance.md, "Taint that survives
 * writes"): a recorded fingerprint is tainted for its tenant only, until its expiry (exclusive, to the
 * millisecond); recording again keeps the later expiry; a lookup answers only what was asked; pruning deletes
 * the expired entries and only those. `setup` runs once before the suite and `close` once after it; each test
 * uses tenants of its own.
 *
 * @example
 * describeTaintLedgerContract('memory', async () => ({ ledger: new InMemoryTaintLedger(), close: async () => {} }));
 */
export function describeTaintLedgerContract(
  engineLabel: string,
  setup: () => Promise<TaintLedgerHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`TaintLedger contract [${engineLabel}]`, () => {
    let harness: TaintLedgerHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const tenant = () => taintTenantKey(randomUUID());
    const value = () => fingerprintString(randomUUID());

    it('finds the recorded fingerprints among those asked, and nothing else', async () => {
      const acme = tenant();
      const [a, b, unknown] = [value(), value(), value()];
      await harness.ledger.record(acme, [a, b], at(60_000));

      expect(await harness.ledger.tainted(acme, [a, unknown], T0)).toEqual(new Set([a]));
      expect(await harness.ledger.tainted(acme, [unknown], T0)).toEqual(new Set());
      expect(await harness.ledger.tainted(acme, [b, a], T0)).toEqual(new Set([a, b]));
    });

    it("keeps tenants apart: one tenant's taint is not another's", async () => {
      const [acme, globex] = [tenant(), tenant()];
      const shared = value();
      await harness.ledger.record(acme, [shared], at(60_000));

      expect(await harness.ledger.tainted(globex, [shared], T0)).toEqual(new Set());
      expect(await harness.ledger.tainted(taintTenantKey(null), [shared], T0)).toEqual(new Set());
      expect(await harness.ledger.tainted(acme, [shared], T0)).toEqual(new Set([shared]));
    });

    it('answers an entry until its expiry, exclusive, to the millisecond', async () => {
      const acme = tenant();
      const fingerprint = value();
      await harness.ledger.record(acme, [fingerprint], at(1));

      expect(await harness.ledger.tainted(acme, [fingerprint], T0)).toEqual(new Set([fingerprint]));
      expect(await harness.ledger.tainted(acme, [fingerprint], at(1))).toEqual(new Set());
    });

    it('keeps the later expiry when a value is recorded again, in either order', async () => {
      const acme = tenant();
      const [extended, kept] = [value(), value()];
      await harness.ledger.record(acme, [extended, kept], at(1_000));
      await harness.ledger.record(acme, [extended], at(5_000));
      await harness.ledger.record(acme, [kept], at(10));

      expect(await harness.ledger.tainted(acme, [extended, kept], at(2_000))).toEqual(new Set([extended]));
      expect(await harness.ledger.tainted(acme, [kept], at(999))).toEqual(new Set([kept]));
    });

    it('records a batch with repeated fingerprints, and answers an empty lookup', async () => {
      const acme = tenant();
      const fingerprint = value();
      await harness.ledger.record(acme, [fingerprint, fingerprint], at(60_000));
      await harness.ledger.record(acme, [], at(60_000));

      expect(await harness.ledger.tainted(acme, [fingerprint, fingerprint], T0)).toEqual(new Set([fingerprint]));
      expect(await harness.ledger.tainted(acme, [], T0)).toEqual(new Set());
    });

    it('looks up hundreds of fingerprints at once', async () => {
      const acme = tenant();
      const recorded = Array.from({ length: 300 }, value);
      await harness.ledger.record(acme, recorded, at(60_000));
      const asked = [...recorded.filter((_, i) => i % 3 === 0), ...Array.from({ length: 200 }, value)];

      expect(await harness.ledger.tainted(acme, asked, T0)).toEqual(new Set(recorded.filter((_, i) => i % 3 === 0)));
    });

    it('prunes the expired entries, and only those', async () => {
      // Earlier than every other test's entries, so that nothing else has expired by `now`.
      const acme = tenant();
      const [expired, current] = [value(), value()];
      const now = new Date(Date.UTC(2000, 0, 1, 0, 1));
      await harness.ledger.record(acme, [expired], new Date(Date.UTC(2000, 0, 1, 0, 0)));
      await harness.ledger.record(acme, [current], new Date(Date.UTC(2000, 0, 1, 0, 2)));

      expect(await harness.ledger.prune(now)).toBe(1);
      expect(await harness.ledger.prune(now)).toBe(0);
      expect(await harness.ledger.tainted(acme, [expired, current], new Date(Date.UTC(2000, 0, 1)))).toEqual(
        new Set([current]),
      );
    });
  });
}
