import { createMongoAbility } from '@casl/ability';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import fc from 'fast-check';
import { z } from 'zod';
import {
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictModule,
  VerdictService,
  defineCapability,
  fixedWindow,
  fromProposal,
} from '@verdict/nestjs';
import { TypeOrmRateLimitStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

// Fixed windows are aligned to the epoch (docs/execution-claims-and-rate-limits.md: `floor(t / w) * w`), whatever the width: not to
// the first call, not to the minute or the hour of the clock. Each case meters one fresh bucket with a limit
// of 1 and calls twice, through the pipeline and a TypeORM rate-limit store.

/** Window widths in seconds: divisors of a minute, widths that divide nothing on a clock face, an hour, a day, 25 hours. */
const WIDTHS = [1, 7, 45, 60, 61, 3600, 5400, 86_400, 90_000] as const;
const RUNS = 400;
/** 800 pipeline calls on a server engine: well within a minute on an idle machine, not on a loaded 2-core one. */
const TIMEOUT_MS = 180_000;
const SEED = process.env.VERDICT_PROPERTY_SEED === undefined ? undefined : Number(process.env.VERDICT_PROPERTY_SEED);
const CONTEXT = { actor: { id: 'meter' }, tenant: 'acme' };

/** Where the second call lands: a delay after the first, or on either side of the first call's window end. */
type Second =
  { readonly kind: 'after'; readonly ms: number } | { readonly kind: 'window_end'; readonly offsetMs: -1 | 0 | 1 };

/** The window end of the instant `t` for a width of `w` seconds, by the definition. */
const windowEnd = (t: number, w: number) => (Math.floor(t / (w * 1000)) + 1) * w * 1000;

const cases = fc.record({
  width: fc.constantFrom(...WIDTHS),
  // 2001–2099, to the millisecond.
  first: fc.integer({ min: Date.UTC(2001, 0, 1), max: Date.UTC(2099, 0, 1) }),
  second: fc.oneof(
    fc
      .integer({ min: 0, max: 3 })
      .chain((scale) => fc.integer({ min: 0, max: 10 ** (scale + 3) }).map((ms): Second => ({ kind: 'after', ms }))),
    fc.constantFrom<Second>(
      { kind: 'window_end', offsetMs: -1 },
      { kind: 'window_end', offsetMs: 0 },
      { kind: 'window_end', offsetMs: 1 },
    ),
  ),
});

for (const engine of databaseEngines()) {
  describe(`fixed-window rate limits [${engine.name}]`, () => {
    let dataSource: DataSource;
    let moduleRef: TestingModule;
    let now = new Date(0);
    let bucket = 0;
    const evidence = new InMemoryEvidenceRecorder();

    beforeAll(async () => {
      dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const capabilities = WIDTHS.map((width) =>
        defineCapability(
          {
            name: `meter.w${width}`,
            description: `A call metered once per ${width}-second window`,
            action: 'meter',
            subject: 'Bucket',
            arguments: z.object({ bucket: z.number().int() }),
            resolveTarget: fromProposal<{ bucket: number }, { id: number }>(({ arguments: args }) => ({
              id: args.bucket,
            })),
            executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({
              name: 'bucket',
              identity: (target) => target.id,
            }),
            rateLimit: fixedWindow<{ bucket: number }, { id: number }>({
              name: `once-per-${width}s`,
              limit: 1,
              windowSeconds: width,
              key: (_envelope, target) => ({ bucket: target.id }),
              reason: 'metered',
            }),
          },
          () => 'metered call',
        ),
      );
      moduleRef = await Test.createTestingModule({
        imports: [
          VerdictModule.forRoot({
            abilityFactory: { createForContext: () => createMongoAbility([{ action: 'meter', subject: 'Bucket' }]) },
            evidence,
            rateLimits: new TypeOrmRateLimitStore(dataSource),
            capabilities,
            clock: () => now,
          }),
        ],
      }).compile();
      await moduleRef.init();
    });

    afterAll(async () => {
      await moduleRef?.close();
      if (dataSource !== undefined) await dropDataSource(dataSource);
    });

    /** One call of `meter.w<width>` on `bucketId` at instant `at`: whether it executed and the window end the gate reported. */
    const call = async (width: number, bucketId: number, at: number) => {
      now = new Date(at);
      const result = await moduleRef
        .get(ActionContextStore)
        .run(CONTEXT, () =>
          moduleRef.get(VerdictService).execute({ capability: `meter.w${width}`, arguments: { bucket: bucketId } }),
        );
      const gate = evidence.decisions().findLast((record) => record.stage === 'rate_limit');
      return {
        executed: result.executed,
        disposition: result.decision.disposition,
        resetAt: gate?.rateLimitResetAt?.getTime(),
      };
    };

    it(
      `starts every window at a multiple of its width since the epoch, across ${RUNS} pairs of calls`,
      async () => {
        const tally = { sameWindow: 0, nextWindow: 0 };
        await fc.assert(
          fc.asyncProperty(cases, async ({ width, first, second }) => {
            bucket += 1;
            const end = windowEnd(first, width);
            const at = second.kind === 'after' ? first + second.ms : end + second.offsetMs;
            const sameWindow = at < end;
            tally[sameWindow ? 'sameWindow' : 'nextWindow'] += 1;

            const one = await call(width, bucket, first);
            const two = await call(width, bucket, at);

            expect(one).toEqual({ executed: true, disposition: 'permit', resetAt: end });
            expect(two).toEqual(
              sameWindow
                ? { executed: false, disposition: 'throttle', resetAt: end }
                : { executed: true, disposition: 'permit', resetAt: windowEnd(at, width) },
            );
          }),
          { numRuns: RUNS, seed: SEED },
        );
        // Both sides of the boundary were exercised.
        expect(tally.sameWindow).toBeGreaterThan(RUNS / 10);
        expect(tally.nextWindow).toBeGreaterThan(RUNS / 10);
      },
      TIMEOUT_MS,
    );
  });
}
