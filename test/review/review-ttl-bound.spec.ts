import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
} from '@verdict/nestjs';
import { refundFixture } from '@verdict/testing-kit';

const NOW = new Date('2026-01-01T10:00:00.000Z');
/** The documented bound: 100 years, as a rate limit's `windowSeconds` and a confirmation's `ttlSeconds`. */
const MAX_WINDOW_SECONDS = 3_155_760_000;

/** A review lane whose refund capability waits `ttlSeconds` for review; rejects as the module's boot does. */
async function laneWithTtl(ttlSeconds: number) {
  const fixture = refundFixture({ record: async () => {} });
  const refund = defineCapability(
    { ...fixture.refund, requiresReview: { ...fixture.refund.requiresReview!, ttlSeconds } },
    fixture.refund.executor as never,
  );
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [refund],
        clock: () => NOW,
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: fixture.actorKey,
        review: {
          items: new InMemoryReviewItemStore(),
          queue: new InProcessDeferredQueue({ attempts: 1 }),
          rehydrate: fixture.rehydrate,
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  return { moduleRef, fixture };
}

/**
 * A `requiresReview` `ttlSeconds` is bounded at boot as a confirmation's is (100 years): a longer one expired an item at
 * an Invalid Date (never), or past what every engine stores as a time.
 */
describe('requiresReview ttlSeconds checked at boot', () => {
  it.each([
    ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
    ['400e9 (an expiry in year 14701)', 400_000_000_000],
    ['one second past 100 years', MAX_WINDOW_SECONDS + 1],
  ])('attack: refuses to boot with %s, naming the option', async (_label, ttlSeconds) => {
    await expect(laneWithTtl(ttlSeconds)).rejects.toThrow(VerdictConfigurationError);
    await expect(laneWithTtl(ttlSeconds)).rejects.toThrow(/requiresReview ttlSeconds .*at most 3,155,760,000/);
  });

  it('control: exactly 100 years boots, and the parked item waits that long', async () => {
    const { moduleRef, fixture } = await laneWithTtl(MAX_WINDOW_SECONDS);
    const answer = await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
      );
    expect(answer.decision.disposition).toBe('require_review');
    const [pending] = await moduleRef.get(ReviewService).pending({ tenant: 'acme', capability: 'orders.refund' });
    expect(pending.expiresAt).toEqual(new Date(NOW.getTime() + MAX_WINDOW_SECONDS * 1000));
    await moduleRef.close();
  });
});
