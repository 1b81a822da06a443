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

/** A review lane whose refund capability's `requiresReview` has `policy` over it; rejects as the module's boot does. */
async function laneWith(policy: Record<string, unknown>) {
  const fixture = refundFixture({ record: async () => {} });
  const refund = defineCapability(
    { ...fixture.refund, requiresReview: { ...fixture.refund.requiresReview!, ...policy } },
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

/** A review lane whose refund capability waits `ttlSeconds` for review. */
const laneWithTtl = (ttlSeconds: number) => laneWith({ ttlSeconds });

/** Parks a refund of order 1002 by customer 72 and returns the item reviewers see. */
async function parkedItem({ moduleRef, fixture }: Awaited<ReturnType<typeof laneWith>>) {
  const answer = await moduleRef
    .get(ActionContextStore)
    .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
      moduleRef
        .get(VerdictService)
        .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
    );
  expect(answer.decision.disposition).toBe('require_review');
  const [pending] = await moduleRef.get(ReviewService).pending({ tenant: 'acme', capability: 'orders.refund' });
  return pending!;
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
    const lane = await laneWithTtl(MAX_WINDOW_SECONDS);
    const pending = await parkedItem(lane);
    expect(pending.expiresAt).toEqual(new Date(NOW.getTime() + MAX_WINDOW_SECONDS * 1000));
    await lane.moduleRef.close();
  });
});

/**
 * `describe`, `reviewer.subject` and `reviewer.action` are checked at boot as a confirmation's callbacks are: a string
 * where a function belongs booted, then failed every proposal with a TypeError once its evidence was written.
 */
describe('requiresReview describe and reviewer checked at boot', () => {
  it.each([
    ['describe as a string', { describe: 'Refund' }, /requiresReview describe that is not a function/],
    ['reviewer as a string', { reviewer: 'admins' }, /requiresReview reviewer that is not an object/],
    ['reviewer null', { reviewer: null }, /requiresReview reviewer that is not an object/],
    ['reviewer.subject as facts', { reviewer: { subject: { tenantId: 'acme' } } }, /reviewer\.subject that is not a/],
    ['a blank reviewer.action', { reviewer: { action: ' ' } }, /reviewer\.action that is not a CASL action name/],
    ['reviewer.action with spaces', { reviewer: { action: ' review ' } }, /reviewer\.action that is not a CASL action/],
  ])('attack: refuses to boot with %s, naming the option', async (_label, policy, message) => {
    const booting = laneWith(policy);
    await expect(booting).rejects.toThrow(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(message);
  });

  it('control: functions and an action name boot; the parked item holds what they built', async () => {
    const lane = await laneWith({
      describe: (_envelope: unknown, order: { id: number }) => `Refund on order ${order.id}`,
      reviewer: { action: 'review', subject: (_envelope: unknown, order: { id: number }) => ({ orderId: order.id }) },
    });
    const pending = await parkedItem(lane);
    expect(pending).toMatchObject({ description: 'Refund on order 1002', subject: { orderId: 1002 } });
    await lane.moduleRef.close();
  });
});
