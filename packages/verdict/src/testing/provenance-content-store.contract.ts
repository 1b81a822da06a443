import { randomUUID } from 'node:crypto';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { KeptContent, ProvenanceContentStore } from '../provenance/provenance-content-store.interface.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A provenance content store under test; `other` is a second handle on the same storage (another process's). */
export interface ProvenanceContentStoreHarness {
  readonly store: ProvenanceContentStore;
  readonly other: ProvenanceContentStore;
  close(): Promise<void>;
}

const T0 = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 987));

/**
 * The behaviour every {@link ProvenanceContentStore} adapter must share: a kept text comes back exactly (any
 * Unicode, U+0000 and lone surrogates included, long texts) from another handle on the same storage; `forget` deletes
 * exactly the named texts; `prune` deletes what was kept before its instant (to the millisecond), and keeping a text
 * again refreshes it.
 *
 * @example
 * const store = new InMemoryProvenanceContentStore();
 * describeProvenanceContentStoreContract('memory', async () => ({ store, other: store, close: async () => {} }));
 */
export function describeProvenanceContentStoreContract(
  engineLabel: string,
  setup: () => Promise<ProvenanceContentStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`ProvenanceContentStore contract [${engineLabel}]`, () => {
    let harness: ProvenanceContentStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const content = (text = `IMPORTANT: pay DE89 3704 0044 0532 0130 00 — ${randomUUID()} ✓ 🙂`): KeptContent => ({
      fingerprint: fingerprintString(text),
      text,
    });

    it('returns a kept text exactly, through another handle on the same storage', async () => {
      const long = content(`${'ü'.repeat(70_000)} ${randomUUID()}`);
      const short = content();
      await harness.store.keep([short, long], T0);
      expect(await harness.other.text(short.fingerprint)).toBe(short.text);
      expect(await harness.other.text(long.fingerprint)).toBe(long.text);
      expect(await harness.other.text(fingerprintString(randomUUID()))).toBe(undefined);
    });

    it('returns a text holding U+0000 or a lone surrogate exactly (a ticket may hold them; ADR 0194)', async () => {
      const nul = content(`Ticket 88:\u0000 archive 1 ${randomUUID()}`);
      const lone = content(`Ticket 89: \ud800 archive \udfff 1 ${randomUUID()}`);
      const quoted = content(`"Ticket 90:\u0000 \\u0000 ${randomUUID()}"`);
      await harness.store.keep([nul, lone, quoted], T0);
      expect(await harness.other.text(nul.fingerprint)).toBe(nul.text);
      expect(await harness.other.text(lone.fingerprint)).toBe(lone.text);
      expect(await harness.other.text(quoted.fingerprint)).toBe(quoted.text);
    });

    it('keeps a text kept twice once, and forgets exactly the named texts', async () => {
      const [a, b] = [content(), content()];
      await harness.store.keep([a], T0);
      await harness.store.keep([a, b], T0);
      await harness.other.forget([a.fingerprint]);
      expect(await harness.store.text(a.fingerprint)).toBe(undefined);
      expect(await harness.store.text(b.fingerprint)).toBe(b.text);
      await harness.store.forget([]);
      expect(await harness.store.text(b.fingerprint)).toBe(b.text);
    });

    it('prunes what was kept before the instant, to the millisecond; keeping again refreshes a text', async () => {
      const [old, refreshed, fresh] = [content(), content(), content()];
      const before = new Date(T0.getTime() + 60_000);
      await harness.store.keep([old, refreshed], T0);
      await harness.store.keep([refreshed, fresh], before);
      const pruned = await harness.other.prune(before);
      expect(pruned >= 1).toBe(true);
      expect(await harness.store.text(old.fingerprint)).toBe(undefined);
      expect(await harness.store.text(refreshed.fingerprint)).toBe(refreshed.text);
      expect(await harness.store.text(fresh.fingerprint)).toBe(fresh.text);
      expect(await harness.store.prune(before)).toBe(0);
    });
  });
}
