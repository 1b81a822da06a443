import { randomUUID } from 'node:crypto';
import type { Containment } from '../containment/containment.js';
import { ContainmentScope } from '../containment/containment-scope.js';
import type { ContainmentStore } from '../containment/containment-store.interface.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A containment store under test. */
export interface ContainmentStoreHarness {
  readonly store: ContainmentStore;
  close(): Promise<void>;
}

const ENGAGED_AT = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 987));

/**
 * The behaviour every {@link ContainmentStore} adapter must share (docs/containment.md): an engaged switch
 * is listed with what was recorded, to the millisecond; engaging it again keeps the first engagement;
 * releasing removes only its own switch and says whether there was one, and, given the `engagedAt` the caller
 * read, only that engagement (a switch released and engaged again since is kept, as `ContainmentService` relies
 * on); switches of one subject under different scopes are distinct. Cross-process effect is proven separately, with real processes.
 *
 * @example
 * describeContainmentStoreContract('memory', async () => ({ store: new InMemoryContainmentStore(), close: async () => {} }));
 */
export function describeContainmentStoreContract(
  engineLabel: string,
  setup: () => Promise<ContainmentStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`ContainmentStore contract [${engineLabel}]`, () => {
    let harness: ContainmentStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const switchFor = (overrides: Partial<Containment> = {}): Containment => ({
      scope: ContainmentScope.Actor,
      subject: fingerprintString(`customer:${randomUUID()}`),
      reason: 'INC-4411: refund abuse',
      engagedBy: 'operator:7',
      operatorIdentity: 'sso:8812',
      engagedAt: ENGAGED_AT,
      ...overrides,
    });
    const mine = async (subjects: readonly string[]) =>
      (await harness.store.active()).filter((c) => subjects.includes(c.subject));

    it('lists an engaged switch with its reason, attribution and instant', async () => {
      const containment = switchFor();
      expect(await harness.store.engage(containment)).toEqual({ engaged: true, containment });
      expect(await mine([containment.subject])).toEqual([containment]);
    });

    it('keeps the first engagement when the same switch is engaged again', async () => {
      const first = switchFor({ operatorIdentity: null });
      await harness.store.engage(first);
      const again = { ...first, reason: 'second look', engagedBy: 'rule:probing', engagedAt: new Date() };
      expect(await harness.store.engage(again)).toEqual({ engaged: false, containment: first });
      expect(await mine([first.subject])).toEqual([first]);
    });

    it('releases only the named switch, and says when there was none', async () => {
      const subject = fingerprintString(`tenant:${randomUUID()}`);
      const asActor = switchFor({ subject });
      const asTenant = switchFor({ subject, scope: ContainmentScope.Tenant });
      await harness.store.engage(asActor);
      await harness.store.engage(asTenant);
      expect(await harness.store.release({ scope: ContainmentScope.Actor, subject })).toBe(true);
      expect(await harness.store.release({ scope: ContainmentScope.Actor, subject })).toBe(false);
      expect(await mine([subject])).toEqual([asTenant]);
    });

    it('engages a released switch afresh', async () => {
      const containment = switchFor({ scope: ContainmentScope.Capability, subject: `orders.${randomUUID()}` });
      await harness.store.engage(containment);
      await harness.store.release(containment);
      const later = { ...containment, reason: 'again', engagedAt: new Date(ENGAGED_AT.getTime() + 1) };
      expect(await harness.store.engage(later)).toEqual({ engaged: true, containment: later });
      expect(await mine([containment.subject])).toEqual([later]);
    });

    it('releases with engagedAt only the engagement read, not one engaged again since', async () => {
      const read = switchFor();
      await harness.store.engage(read);
      await harness.store.release(read, read.engagedAt);
      const newer = { ...read, engagedBy: 'operator:9', engagedAt: new Date(ENGAGED_AT.getTime() + 1) };
      await harness.store.engage(newer);
      expect(await harness.store.release(read, read.engagedAt)).toBe(false);
      expect(await mine([read.subject])).toEqual([newer]);
      expect(await harness.store.release(read, newer.engagedAt)).toBe(true);
      expect(await mine([read.subject])).toEqual([]);
    });

    it('lists switches oldest first', async () => {
      const newer = switchFor({ engagedAt: new Date(ENGAGED_AT.getTime() + 60_000) });
      const older = switchFor({ engagedAt: new Date(ENGAGED_AT.getTime() - 60_000) });
      await harness.store.engage(newer);
      await harness.store.engage(older);
      expect((await mine([newer.subject, older.subject])).map((c) => c.subject)).toEqual([
        older.subject,
        newer.subject,
      ]);
    });
  });
}
