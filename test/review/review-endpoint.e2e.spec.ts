import { describe, expect, it } from '@jest/globals';
import { type CanActivate, Controller, type ExecutionContext, Injectable, Post, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  ActionContextStore,
  type Approver,
  type AuthorizedAction,
  ContainmentService,
  InMemoryContainmentStore,
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
 * `anonymous` is what the `reviewer` hook answers for a request nobody signed in to (`null` unless a test says): what a
 * hook written `person && { id, context }` answers then, or a malformed answer.
 */
async function setup({ anonymous = () => null }: { anonymous?: () => unknown } = {}) {
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
        containment: { store: new InMemoryContainmentStore(), cacheTtlMs: 0 },
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
            const known = fixture.people.get(person);
            return known === undefined ? null : { id: person, context: fixture.contextOf(person) };
          },
        },
      }),
    ],
    controllers: [ReviewController],
    providers: [SignedIn],
  }).compile();
  const app = moduleRef.createNestApplication();
  await app.init();
  const proposeAs = async (person: string) => {
    await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf(person), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 50 }, toolCallId: 'call_1' }),
      );
    const [item] = await moduleRef.get(ReviewService).pending({ tenant: 'acme' });
    return item!.itemId;
  };
  const approveAs = (itemId: string, person?: string) => {
    const call = request(app.getHttpServer()).post(`/reviews/${itemId}/approve`);
    return person === undefined ? call : call.set('x-person', person);
  };
  const contain = (actor: string) =>
    moduleRef.get(ContainmentService).engage({ scope: 'actor', subject: actor, reason: 'INC-1', by: 'operator:1' });
  return { app, refunds, queue, reviews: moduleRef.get(ReviewService), proposeAs, approveAs, contain };
}

describe('@ReviewEndpoint()', () => {
  it('lets a staff member of the tenant approve, and the refund runs once (utility)', async () => {
    const { app, refunds, queue, proposeAs, approveAs } = await setup();
    const itemId = await proposeAs('customer:72');
    const response = await approveAs(itemId, 'staff:7');
    expect({ status: response.status, body: response.body }).toEqual({
      status: 201,
      body: { outcome: 'approved', itemId },
    });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    await app.close();
  });

  it.each([
    ['nobody signed in', undefined, 401],
    ['the requester', 'staff:7', 403],
    ['a person without the CASL review rule', 'intern:9', 403],
  ])('refuses %s', async (_who, person, status) => {
    const { app, refunds, queue, proposeAs, approveAs } = await setup();
    const itemId = await proposeAs('staff:7');
    expect((await approveAs(itemId, person)).status).toBe(status);
    await queue.idle();
    expect(refunds).toHaveLength(0);
    await app.close();
  });

  it('answers 403 to a reviewer whose actor is contained; another staff member approves (control)', async () => {
    const { app, refunds, queue, proposeAs, approveAs, contain } = await setup();
    const itemId = await proposeAs('customer:72');
    await contain('staff:7');
    expect((await approveAs(itemId, 'staff:7')).status).toBe(403);
    expect((await approveAs(itemId, 'staff:8')).body).toEqual({ outcome: 'approved', itemId });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    await app.close();
  });

  it('answers 404 for an item that does not exist', async () => {
    const { app, approveAs } = await setup();
    expect((await approveAs('rvw_guessed', 'staff:7')).status).toBe(404);
    await app.close();
  });

  it.each([
    ['a space', '%20'],
    ['a tab and a space', '%09%20'],
  ])(
    'attack: answers 404, not 500, for an item id that is %s; the item proposed stays unapproved',
    async (_what, id) => {
      const { app, refunds, queue, proposeAs, approveAs } = await setup();
      const itemId = await proposeAs('customer:72');
      const response = await approveAs(id, 'staff:7');
      expect({ status: response.status, message: response.body.message }).toEqual({
        status: 404,
        message: 'There is no such review item in your tenant.',
      });
      await queue.idle();
      expect(refunds).toHaveLength(0);
      expect((await approveAs(itemId, 'staff:7')).body).toEqual({ outcome: 'approved', itemId });
      await app.close();
    },
  );
});

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
      const { app, refunds, queue, reviews, proposeAs, approveAs } = await setup({ anonymous });
      const itemId = await proposeAs('customer:72');
      const response = await approveAs(itemId);
      await queue.idle();
      const pending = await reviews.pending({ tenant: 'acme' });
      await app.close();
      expect({ status: response.status, pending: pending.map((item) => item.itemId), refunds: refunds.length }).toEqual(
        { status: 401, pending: [itemId], refunds: 0 },
      );
    },
  );

  it('utility: a signed-in staff member approves, and the refund runs once', async () => {
    const { app, refunds, queue, proposeAs, approveAs } = await setup({ anonymous: () => undefined });
    const itemId = await proposeAs('customer:72');
    const response = await approveAs(itemId, 'staff:7');
    await queue.idle();
    await app.close();
    expect({ status: response.status, body: response.body, refunds: refunds.length }).toEqual({
      status: 201,
      body: { outcome: 'approved', itemId },
      refunds: 1,
    });
  });
});
