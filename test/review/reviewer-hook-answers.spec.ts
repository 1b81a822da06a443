import { describe, expect, it } from '@jest/globals';
import { type CanActivate, Controller, type ExecutionContext, Injectable, Post, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  ActionContextStore,
  type Approver,
  type AuthorizedAction,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewEndpoint,
  ReviewRequest,
  ReviewService,
  VerdictModule,
  VerdictService,
  type VerifiedReviewRequest,
} from '@verdict/nestjs';
import { type RefundArguments, type RefundOrder, refundFixture } from '@verdict/testing-kit';

/** Stands in for authentication: the signed-in person comes from a header the guard trusts. */
@Injectable()
class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    if (req.headers['x-person']) req.person = String(req.headers['x-person']);
    return true;
  }
}

@Controller('reviews')
@UseGuards(SignedIn)
class ReviewController {
  constructor(private readonly reviews: ReviewService) {}

  @Post(':itemId/approve')
  @ReviewEndpoint()
  approve(@ReviewRequest() { item, reviewer }: VerifiedReviewRequest) {
    return this.reviews.approve(item.itemId, reviewer);
  }
}

/**
 * An application whose `reviewer` hook answers the signed-in person as the reviewer, and `anonymous` for a request
 * nobody signed in to: what a hook written `person && { id, context }` answers then, or a malformed answer.
 */
async function setup(anonymous: () => unknown) {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  const queue = new InProcessDeferredQueue();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [fixture.refund],
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: fixture.actorKey,
        review: {
          items: new InMemoryReviewItemStore(),
          queue,
          rehydrate: fixture.rehydrate,
          actorKey: fixture.actorKey,
        },
        reviewEndpoint: {
          reviewer: (executionContext) => {
            const person = executionContext.switchToHttp().getRequest().person as string | undefined;
            if (person === undefined) return anonymous() as Approver | null;
            return { id: person, context: fixture.contextOf(person) };
          },
        },
      }),
    ],
    controllers: [ReviewController],
    providers: [SignedIn],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  const reviews = moduleRef.get(ReviewService);
  await moduleRef
    .get(ActionContextStore)
    .run(fixture.contextOf('customer:72'), () =>
      moduleRef
        .get(VerdictService)
        .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 50 }, toolCallId: 'call_1' }),
    );
  const [item] = await reviews.pending({ tenant: 'acme' });
  const approveAs = (person?: string) => {
    const call = request(app.getHttpServer()).post(`/reviews/${item!.itemId}/approve`);
    return person === undefined ? call : call.set('x-person', person);
  };
  return { app, refunds, queue, reviews, itemId: item!.itemId, approveAs };
}

const staffContext = { actor: { id: 'staff:7' }, tenant: 'acme' };

describe('@ReviewEndpoint() and what the reviewer hook answers', () => {
  it.each<[string, () => unknown]>([
    ['undefined (a hook written `person && { id, context }`)', () => undefined],
    ['a promise of undefined', async () => undefined],
    ['null', () => null],
    ['a string, not an object', () => 'staff:7'],
    ['a reviewer without an id', () => ({ context: staffContext })],
    ['a reviewer whose id is blank', () => ({ id: ' \t', context: staffContext })],
    ['a reviewer whose id is not a string', () => ({ id: 7, context: staffContext })],
  ])(
    'attack: answers 401, not 500, when the reviewer hook answers %s; the item stays pending',
    async (_what, anonymous) => {
      const { app, refunds, queue, reviews, itemId, approveAs } = await setup(anonymous);
      const response = await approveAs(undefined);
      await queue.idle();
      const pending = await reviews.pending({ tenant: 'acme' });
      await app.close();
      expect({ status: response.status, pending: pending.map((item) => item.itemId), refunds: refunds.length }).toEqual(
        { status: 401, pending: [itemId], refunds: 0 },
      );
    },
  );

  it('utility: a signed-in staff member approves, and the refund runs once', async () => {
    const { app, refunds, queue, itemId, approveAs } = await setup(() => undefined);
    const response = await approveAs('staff:7');
    await queue.idle();
    await app.close();
    expect({ status: response.status, body: response.body, refunds: refunds.length }).toEqual({
      status: 201,
      body: { outcome: 'approved', itemId },
      refunds: 1,
    });
  });
});
