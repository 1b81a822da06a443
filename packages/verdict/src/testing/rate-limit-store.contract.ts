import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { InvalidRateLimitRequestError } from '../errors/invalid-rate-limit-request.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { MAX_RATE_LIMIT, MAX_WINDOW_SECONDS } from '../rate-limits/fixed-window.js';
import type { RateLimitRequest, RateLimitStore } from '../rate-limits/rate-limit-store.interface.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A rate-limit store under test. */
export interface RateLimitStoreHarness {
  readonly store: RateLimitStore;
  close(): Promise<void>;
}

const WINDOW_SECONDS = 3600;
/** A window start aligned to the epoch (`floor(t / w) * w`); the window math itself is the caller's. */
const WINDOW = new Date(Date.UTC(2024, 1, 29, 23, 0, 0));
const NEXT_WINDOW = new Date(WINDOW.getTime() + WINDOW_SECONDS * 1000);
/** Limits no engine counts alike: a fraction, `NaN`, a negative, past a 32-bit count, not a number. */
const MALFORMED_LIMITS: readonly unknown[] = [1.5, Number.NaN, -1, Infinity, MAX_RATE_LIMIT + 1, 2 ** 40, '3', null];
/** Window widths no gate takes: none, a fraction, `NaN`, past 100 years, not a number. */
const MALFORMED_WINDOW_SECONDS: readonly unknown[] = [0, 1.5, Number.NaN, MAX_WINDOW_SECONDS + 1, '60'];
/** Window starts no engine stores: an invalid date, a date's string, a number. */
const MALFORMED_WINDOW_STARTS: readonly unknown[] = [new Date(Number.NaN), WINDOW.toISOString(), WINDOW.getTime()];

/**
 * The behaviour every {@link RateLimitStore} adapter must share (docs/execution-claims-and-rate-limits.md): fixed-window counting up
 * to the limit, refusal at the limit without incrementing, a fresh count per window, buckets isolated
 * by fingerprint, exact `remaining` and `resetAt`, pruning of ended windows only, and `InvalidRateLimitRequestError`
 * for a limit, window width or window start no engine counts alike, before anything is counted. `setup` runs once
 * before the suite and `close` once after it; each test uses buckets of its own. Concurrency across OS
 * processes is proven separately, with real processes.
 *
 * @example
 * describeRateLimitStoreContract('memory', async () => ({ store: new InMemoryRateLimitStore(), close: async () => {} }));
 */
export function describeRateLimitStoreContract(
  engineLabel: string,
  setup: () => Promise<RateLimitStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`RateLimitStore contract [${engineLabel}]`, () => {
    let harness: RateLimitStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const consume = (request: RateLimitRequest) => harness.store.consume(request);
    /** `times` consumptions one after another. */
    const consumeTimes = async (request: RateLimitRequest, times: number) => {
      const results = [];
      for (let i = 0; i < times; i++) results.push(await consume(request));
      return results;
    };

    describe('consume', () => {
      it('counts units up to the limit, then refuses without incrementing', async () => {
        const request = unit({ limit: 3 });
        const resetAt = NEXT_WINDOW;

        expect(await consumeTimes(request, 5)).toEqual([
          { allowed: true, count: 1, remaining: 2, resetAt },
          { allowed: true, count: 2, remaining: 1, resetAt },
          { allowed: true, count: 3, remaining: 0, resetAt },
          { allowed: false, count: 3, remaining: 0, resetAt },
          { allowed: false, count: 3, remaining: 0, resetAt },
        ]);
      });

      it('does not move the counter on a refusal: a raised limit continues from the limit', async () => {
        const request = unit({ limit: 2 });
        await consumeTimes(request, 2);
        expect((await consumeTimes(request, 3)).map((result) => result.allowed)).toEqual([false, false, false]);

        expect(await consume({ ...request, limit: 3 })).toEqual({
          allowed: true,
          count: 3,
          remaining: 0,
          resetAt: NEXT_WINDOW,
        });
        expect(await consume({ ...request, limit: 3 })).toMatchObject({ allowed: false, count: 3 });
      });

      it('starts the next window at 1, whatever the last one held', async () => {
        const request = unit({ limit: 2 });
        await consumeTimes(request, 3);

        const next = { ...request, windowStart: NEXT_WINDOW };
        const resetAt = new Date(NEXT_WINDOW.getTime() + WINDOW_SECONDS * 1000);
        expect(await consume(next)).toEqual({ allowed: true, count: 1, remaining: 1, resetAt });
        expect(await consume(request)).toMatchObject({ allowed: false, count: 2 });
      });

      it('isolates buckets by fingerprint', async () => {
        const exhausted = unit({ limit: 1 });
        await consumeTimes(exhausted, 2);

        expect(await consume(unit({ limit: 1 }))).toMatchObject({ allowed: true, count: 1 });
        expect(await consume(exhausted)).toMatchObject({ allowed: false, count: 1 });
      });

      it('reports resetAt as the window start plus its width, to the millisecond', async () => {
        const windowStart = new Date(Date.UTC(2024, 2, 1, 0, 0, 7, 0));
        const result = await consume(unit({ windowStart, windowSeconds: 7, limit: 4 }));

        expect(result).toEqual({
          allowed: true,
          count: 1,
          remaining: 3,
          resetAt: new Date('2024-03-01T00:00:14.000Z'),
        });
      });

      it('admits nothing at a limit of 0', async () => {
        const request = unit({ limit: 0 });
        expect(await consume(request)).toEqual({ allowed: false, count: 0, remaining: 0, resetAt: NEXT_WINDOW });
        expect(await consume({ ...request, limit: 1 })).toMatchObject({ allowed: true, count: 1 });
      });

      it('admits exactly the limit of 30 concurrent consumptions', async () => {
        const request = unit({ limit: 5 });
        const results = await Promise.all(Array.from({ length: 30 }, () => consume(request)));

        const allowed = results.filter((result) => result.allowed);
        expect(allowed.map((result) => result.count).sort()).toEqual([1, 2, 3, 4, 5]);
        expect(results.filter((result) => !result.allowed)).toHaveLength(25);
      });
    });

    describe('malformed requests', () => {
      it('attack: a fractional, NaN, negative, out-of-range or non-number limit is refused with InvalidRateLimitRequestError, and counts nothing', async () => {
        const request = unit({ limit: 1 });
        await consume(request);
        for (const limit of MALFORMED_LIMITS)
          await refusesMalformed(consume({ ...request, limit } as RateLimitRequest), `limit ${String(limit)}`);
        expect(await consume({ ...request, limit: 2 })).toEqual({
          allowed: true,
          count: 2,
          remaining: 0,
          resetAt: NEXT_WINDOW,
        });
      });

      it('attack: a malformed windowSeconds or windowStart is refused with InvalidRateLimitRequestError, and counts nothing', async () => {
        const request = unit({ limit: 1 });
        for (const windowSeconds of MALFORMED_WINDOW_SECONDS)
          await refusesMalformed(
            consume({ ...request, windowSeconds } as RateLimitRequest),
            `windowSeconds ${String(windowSeconds)}`,
          );
        for (const windowStart of MALFORMED_WINDOW_STARTS)
          await refusesMalformed(
            consume({ ...request, windowStart } as RateLimitRequest),
            `windowStart ${String(windowStart)}`,
          );
        expect(await consume(request)).toMatchObject({ allowed: true, count: 1 });
        expect(await consume(request)).toMatchObject({ allowed: false, count: 1 });
      });

      it('control: limits of 0, 1 and 2,147,483,647 count as they say', async () => {
        const none = unit({ limit: 0 });
        expect(await consume(none)).toEqual({ allowed: false, count: 0, remaining: 0, resetAt: NEXT_WINDOW });
        const one = unit({ limit: 1 });
        expect(await consumeTimes(one, 2)).toEqual([
          { allowed: true, count: 1, remaining: 0, resetAt: NEXT_WINDOW },
          { allowed: false, count: 1, remaining: 0, resetAt: NEXT_WINDOW },
        ]);
        const most = unit({ limit: MAX_RATE_LIMIT, windowSeconds: MAX_WINDOW_SECONDS, windowStart: new Date(0) });
        expect(await consume(most)).toEqual({
          allowed: true,
          count: 1,
          remaining: MAX_RATE_LIMIT - 1,
          resetAt: new Date(MAX_WINDOW_SECONDS * 1000),
        });
      });
    });

    describe('prune', () => {
      it('deletes the windows that have ended, and only those', async () => {
        // Earlier than every other test's windows, so that nothing else has ended by `now`.
        const windowSeconds = 60;
        const ended = unit({ windowStart: new Date(Date.UTC(2000, 0, 1, 0, 0, 0)), windowSeconds, limit: 5 });
        const current = { ...ended, windowStart: new Date(Date.UTC(2000, 0, 1, 0, 1, 0)) };
        await consumeTimes(ended, 2);
        await consumeTimes(current, 2);
        const now = current.windowStart;

        expect(await harness.store.prune(now)).toBe(1);
        expect(await harness.store.prune(now)).toBe(0);
        expect(await consume(current)).toMatchObject({ allowed: true, count: 3 });
        expect(await consume(ended)).toMatchObject({ allowed: true, count: 1 });
      });
    });
  });
}

/** Asserts that `call` rejects with {@link InvalidRateLimitRequestError}, naming what it got instead. */
async function refusesMalformed(call: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof InvalidRateLimitRequestError, `${what}: ${String(error)}`);
    return true;
  });
}

function unit(overrides: Partial<RateLimitRequest> = {}): RateLimitRequest {
  const windowSeconds = overrides.windowSeconds ?? WINDOW_SECONDS;
  const bucketFingerprint = fingerprint({
    capability: 'shipments.refresh',
    policy: 'refresh-per-customer',
    algorithm: 'fixed_window',
    window_seconds: windowSeconds,
    binding: { customer: randomUUID() },
  });
  return { bucketFingerprint, windowStart: WINDOW, windowSeconds, limit: 3, ...overrides };
}
