import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { BudgetReservationRequest, BudgetStore } from '../budgets/budget-store.interface.js';
import { InvalidBudgetReservationError } from '../errors/invalid-budget-reservation.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** Amounts and limits no store may take: not a number, negative, fractional, unsafe. */
const MALFORMED = [Number.NaN, -1, -60, 0.5, Number.POSITIVE_INFINITY, 2 ** 53];

/** A budget store under test. */
export interface BudgetStoreHarness {
  readonly store: BudgetStore;
  close(): Promise<void>;
}

const WINDOW_SECONDS = 3600;
/** A window start aligned to the epoch (`floor(t / w) * w`); the window math itself is the caller's. */
const WINDOW = new Date(Date.UTC(2024, 1, 29, 23, 0, 0));
const NEXT_WINDOW = new Date(WINDOW.getTime() + WINDOW_SECONDS * 1000);

/**
 * The behaviour every {@link BudgetStore} adapter must share (docs/budgets.md): reservations up to the limit (spent and
 * reserved both count), refusal without a change, commit and release of a held reservation only, a fresh window per
 * window start, buckets isolated by fingerprint, pruning of ended windows only, and `InvalidBudgetReservationError`
 * for an amount or limit that is not a non-negative safe integer, before anything changes. `setup` runs once before the suite
 * and `close` once after it; each test uses buckets of its own. Concurrency across OS processes is proven
 * separately, with real processes.
 *
 * @example
 * describeBudgetStoreContract('memory', async () => ({ store: new InMemoryBudgetStore(), close: async () => {} }));
 */
export function describeBudgetStoreContract(
  engineLabel: string,
  setup: () => Promise<BudgetStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`BudgetStore contract [${engineLabel}]`, () => {
    let harness: BudgetStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const reserve = (request: BudgetReservationRequest) => harness.store.reserve(request);
    const held = ({ bucketFingerprint, windowStart, amount }: BudgetReservationRequest) => ({
      bucketFingerprint,
      windowStart,
      amount,
    });

    describe('reserve', () => {
      it('reserves amounts up to the limit, then refuses without a change', async () => {
        const request = spend({ limit: 1_000, amount: 400 });
        const resetAt = NEXT_WINDOW;

        expect([await reserve(request), await reserve(request), await reserve(request)]).toEqual([
          { reserved: true, remaining: 600, resetAt },
          { reserved: true, remaining: 200, resetAt },
          { reserved: false, remaining: 0, resetAt },
        ]);
        expect(await reserve({ ...request, amount: 200 })).toEqual({ reserved: true, remaining: 0, resetAt });
      });

      it('refuses an amount above the limit in an empty window, and reserves 0 in a full one', async () => {
        const request = spend({ limit: 10, amount: 11 });
        expect(await reserve(request)).toMatchObject({ reserved: false });
        expect(await reserve({ ...request, amount: 10 })).toMatchObject({ reserved: true, remaining: 0 });
        expect(await reserve({ ...request, amount: 0 })).toMatchObject({ reserved: true, remaining: 0 });
        expect(await reserve({ ...request, amount: 1 })).toMatchObject({ reserved: false });
      });

      it('starts every window afresh and isolates buckets by fingerprint', async () => {
        const request = spend({ limit: 5, amount: 5 });
        await reserve(request);
        expect(await reserve({ ...request, windowStart: NEXT_WINDOW })).toMatchObject({ reserved: true });
        expect(await reserve(spend({ limit: 5, amount: 5 }))).toMatchObject({ reserved: true });
        expect(await reserve(request)).toMatchObject({ reserved: false });
      });

      it('reserves exactly what fits of 30 concurrent reservations', async () => {
        const request = spend({ limit: 1_000, amount: 70 });
        const results = await Promise.all(Array.from({ length: 30 }, () => reserve(request)));
        expect(results.filter((result) => result.reserved)).toHaveLength(14);
      });
    });

    describe('reading where a window stands (an amount of 0)', () => {
      // Windows of 1990, before every other test's (the prune test's end in 2000): a prune up to `ended` sees only these.
      const windowStart = new Date(Date.UTC(1990, 0, 1, 0, 0, 0));
      const ended = new Date(Date.UTC(1990, 0, 1, 1, 0, 0));
      const read = (overrides: Partial<BudgetReservationRequest> = {}) =>
        spend({ windowStart, windowSeconds: 60, limit: 5, amount: 0, ...overrides });

      it('attack: reading many keys writes no window, so nothing is left to prune', async () => {
        for (let key = 0; key < 10; key++)
          expect(await reserve(read())).toEqual({
            reserved: true,
            remaining: 5,
            resetAt: new Date(Date.UTC(1990, 0, 1, 0, 1)),
          });

        expect(await harness.store.prune(ended)).toBe(0);
      });

      it('control: a read answers what a spend left, and the window of the spend is still written and pruned', async () => {
        const request = read({ amount: 3 });
        await reserve(request);
        expect(await harness.store.commit(held(request))).toBe(true);
        expect(await reserve({ ...request, amount: 0 })).toMatchObject({ reserved: true, remaining: 2 });
        expect(await reserve({ ...request, limit: 2, amount: 0 })).toMatchObject({ reserved: false, remaining: 0 });

        expect(await harness.store.prune(ended)).toBe(1);
      });

      it('control: a read settles as held: committing or releasing its 0 answers true and writes no window', async () => {
        const request = read();
        expect(await reserve(request)).toMatchObject({ reserved: true });
        expect(await harness.store.commit(held(request))).toBe(true);
        expect(await harness.store.release(held(request))).toBe(true);

        expect(await harness.store.prune(ended)).toBe(0);
      });
    });

    describe('commit and release', () => {
      it('a committed amount stays spent; a released one can be reserved again', async () => {
        const request = spend({ limit: 100, amount: 60 });
        await reserve(request);
        expect(await harness.store.release(held(request))).toBe(true);
        expect(await reserve(request)).toMatchObject({ reserved: true, remaining: 40 });
        expect(await harness.store.commit(held(request))).toBe(true);
        expect(await reserve(request)).toMatchObject({ reserved: false });
        expect(await reserve({ ...request, amount: 40 })).toMatchObject({ reserved: true, remaining: 0 });
      });

      it('settles only what is held: a second release, or one in another window, changes nothing', async () => {
        const request = spend({ limit: 100, amount: 60 });
        await reserve(request);
        expect(await harness.store.release(held(request))).toBe(true);
        expect(await harness.store.release(held(request))).toBe(false);
        expect(await harness.store.commit({ ...held(request), windowStart: NEXT_WINDOW })).toBe(false);
        expect(await reserve({ ...request, amount: 100 })).toMatchObject({ reserved: true, remaining: 0 });
      });
    });

    describe('malformed amounts and limits', () => {
      it('attack: a NaN, negative, fractional or unsafe amount or limit is refused with InvalidBudgetReservationError, and the window still refuses past its limit', async () => {
        const request = spend({ limit: 100, amount: 60 });
        await reserve(request);
        for (const value of MALFORMED) {
          await refusesMalformed(reserve({ ...request, amount: value }), `reserve amount ${value}`);
          await refusesMalformed(reserve({ ...request, limit: value }), `reserve limit ${value}`);
          await refusesMalformed(harness.store.commit({ ...held(request), amount: value }), `commit ${value}`);
          await refusesMalformed(harness.store.release({ ...held(request), amount: value }), `release ${value}`);
        }
        expect(await reserve({ ...request, amount: 41 })).toMatchObject({ reserved: false });
        expect(await reserve({ ...request, amount: 40 })).toMatchObject({ reserved: true, remaining: 0 });
      });

      it('attack: a malformed amount in an empty window reserves nothing there', async () => {
        const request = spend({ limit: 10, amount: 10 });
        for (const value of MALFORMED)
          await refusesMalformed(reserve({ ...request, amount: value }), `reserve amount ${value}`);
        expect(await reserve(request)).toMatchObject({ reserved: true, remaining: 0 });
        expect(await reserve({ ...request, amount: 1 })).toMatchObject({ reserved: false });
      });

      it('control: non-negative safe integers, 0 and beyond 32 bits, are reserved, committed and released', async () => {
        const request = spend({ limit: 2 ** 40, amount: 2 ** 33 });
        expect(await reserve(request)).toMatchObject({ reserved: true, remaining: 2 ** 40 - 2 ** 33 });
        expect(await reserve({ ...request, amount: 0 })).toMatchObject({ reserved: true });
        expect(await harness.store.release({ ...held(request), amount: 0 })).toBe(true);
        expect(await harness.store.commit(held(request))).toBe(true);
        expect(await reserve({ ...request, amount: 2 ** 40 - 2 ** 33 })).toMatchObject({
          reserved: true,
          remaining: 0,
        });
      });
    });

    describe('prune', () => {
      it('deletes the windows that have ended, and only those', async () => {
        // Earlier than every other test's windows, so that nothing else has ended by `now`.
        const windowSeconds = 60;
        const ended = spend({ windowStart: new Date(Date.UTC(2000, 0, 1, 0, 0, 0)), windowSeconds, limit: 5 });
        const current = { ...ended, windowStart: new Date(Date.UTC(2000, 0, 1, 0, 1, 0)) };
        await reserve(ended);
        await reserve(current);
        const now = current.windowStart;

        expect(await harness.store.prune(now)).toBe(1);
        expect(await harness.store.prune(now)).toBe(0);
        expect(await reserve({ ...current, amount: 5 })).toMatchObject({ reserved: false });
        expect(await reserve({ ...ended, amount: 5 })).toMatchObject({ reserved: true });
      });
    });
  });
}

/** Asserts that `call` rejects with {@link InvalidBudgetReservationError}, naming what it got instead. */
async function refusesMalformed(call: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof InvalidBudgetReservationError, `${what}: ${String(error)}`);
    return true;
  });
}

function spend(overrides: Partial<BudgetReservationRequest> = {}): BudgetReservationRequest {
  const windowSeconds = overrides.windowSeconds ?? WINDOW_SECONDS;
  const bucketFingerprint = fingerprint({
    budget: 'refunds',
    per: 'actor',
    window_seconds: windowSeconds,
    binding: { actor: randomUUID() },
  });
  return { bucketFingerprint, windowStart: WINDOW, windowSeconds, limit: 3, amount: 1, ...overrides };
}
