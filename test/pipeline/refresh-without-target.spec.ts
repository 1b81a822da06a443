import { describe, expect, it } from '@jest/globals';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresReview,
} from '@verdict/nestjs';

// docs/architecture.md, steps 7–8: a refresh that answers no object (a findOneBy that found nothing: the order was
// deleted between proposal and execution) refreshed no target. It is a recorded deny at target_refresh, as step 3
// denies a resolver's; the identity function never sees it and nothing executes.

interface Order {
  readonly id: number;
  readonly tenantId: string;
}

interface Actor {
  readonly id: string;
  readonly role: 'customer' | 'staff';
}

const customer: ActionContext = { actor: { id: 'customer:1', role: 'customer' }, tenant: 'acme', metadata: {} };
const staff: ActionContext = { actor: { id: 'staff:7', role: 'staff' }, tenant: 'acme', metadata: {} };
const orderId = z.object({ orderId: z.number() });

/**
 * `orders.cancel` over two reads of one table: the resolver reads `listed` (what the proposal saw), the refresh
 * `findOneBy`s `rows` (the row as it is now), answering `null` once it is deleted. `refresh` replaces that read.
 */
function orderDomain(options: { reviewed?: boolean; refresh?: (order: Order) => unknown } = {}) {
  const listed = new Map<number, Order>([[1, { id: 1, tenantId: 'acme' }]]);
  const rows = new Map(listed);
  const cancelled: number[] = [];
  const findOneBy = (id: number) => rows.get(id) ?? null;
  const cancel = defineCapability(
    {
      name: 'orders.cancel',
      description: 'Cancel an order',
      action: 'cancel',
      subject: 'Order',
      arguments: orderId,
      resolveTarget: fromProposal(orderId, ({ arguments: a }) => listed.get(a.orderId)!),
      // The getting-started identity: it reads the target's fields.
      executionTarget: ExecutionTargetPolicy.refresh<Order>({
        name: 'order-by-id',
        identity: (o) => ({ tenant: o.tenantId, id: o.id }),
        refresh: (o) => (options.refresh?.(o) ?? findOneBy(o.id)) as Order,
      }),
      requiresReview: options.reviewed
        ? requiresReview<{ orderId: number }, Order, Actor>({
            bind: (_envelope, order) => ({ order: order.id }),
            reason: 'Cancellations are reviewed.',
            describe: (_envelope, order) => `Cancel order ${order.id}`,
            reviewer: { subject: (_envelope, order) => ({ tenantId: order.tenantId }) },
            actorKey: (actor) => actor.id,
          })
        : undefined,
    },
    (action) => void cancelled.push(action.target.id),
  );
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('cancel', 'Order', { tenantId: context.tenant });
      if ((context.actor as Actor).role === 'staff') can('review', 'Order', { tenantId: context.tenant });
      return build();
    },
  };
  return { cancel, abilityFactory, rows, cancelled };
}

async function boot(domain: ReturnType<typeof orderDomain>) {
  const evidence = new InMemoryEvidenceRecorder();
  const items = new InMemoryReviewItemStore();
  const queue = new InProcessDeferredQueue({ attempts: 1 });
  const people = new Map<string, ActionContext>([['customer:1', customer]]);
  const moduleRef = await Test.createTestingModule({
    imports: [
      EventEmitterModule.forRoot(),
      VerdictModule.forRoot({
        abilityFactory: domain.abilityFactory,
        capabilities: [domain.cancel],
        evidence,
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: (actor: Actor) => actor.id,
        review: {
          items,
          queue,
          rehydrate: ({ actorKey }) => people.get(actorKey as string) ?? null,
          actorKey: (actor: Actor) => actor.id,
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  const execute = () =>
    moduleRef
      .get(ActionContextStore)
      .run(customer, () =>
        moduleRef.get(VerdictService).execute({ capability: 'orders.cancel', arguments: { orderId: 1 } }),
      );
  const stages = () => evidence.decisions().map((record) => `${record.stage}:${record.disposition}`);
  const reasons = () => evidence.decisions().map((record) => record.reason);
  return { moduleRef, execute, stages, reasons, items, queue, evidence };
}

describe('a refresh that answers no object', () => {
  it('attack: a deleted row (findOneBy answers null) is a recorded deny at target_refresh, not a crash', async () => {
    const domain = orderDomain();
    const { moduleRef, execute, stages, reasons } = await boot(domain);
    domain.rows.delete(1);
    const result = await execute();
    expect(result.executed).toBe(false);
    expect(result.decision).toMatchObject({
      disposition: 'deny',
      stage: 'target_refresh',
      reason: 'refresh: the target is gone',
    });
    expect(domain.cancelled).toEqual([]);
    expect(stages()).toEqual(['proposal:permit', 'target_refresh:deny']);
    expect(reasons()).toContain('refresh: the target is gone');
    await moduleRef.close();
  });

  it('attack: an async refresh answering undefined is denied the same way', async () => {
    const domain = orderDomain({ refresh: async () => undefined as never });
    const { moduleRef, execute, stages } = await boot(domain);
    const result = await execute();
    expect(result.executed).toBe(false);
    expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'target_refresh' });
    expect(domain.cancelled).toEqual([]);
    expect(stages()).toEqual(['proposal:permit', 'target_refresh:deny']);
    await moduleRef.close();
  });

  it('attack: a refresh answering a primitive (the row id, not the row) is denied as no object', async () => {
    const domain = orderDomain({ refresh: (o) => o.id });
    const { moduleRef, execute, stages } = await boot(domain);
    const result = await execute();
    expect(result.decision).toMatchObject({
      disposition: 'deny',
      stage: 'target_refresh',
      reason: 'refresh: target is not an object',
    });
    expect(domain.cancelled).toEqual([]);
    expect(stages()).toEqual(['proposal:permit', 'target_refresh:deny']);
    await moduleRef.close();
  });

  it('attack: an order deleted while its approved review item is queued settles the item refused, executing nothing', async () => {
    const domain = orderDomain({ reviewed: true });
    const { moduleRef, execute, items, queue, evidence } = await boot(domain);
    const parked = await execute();
    expect(parked.decision.disposition).toBe('require_review');
    const reviews = moduleRef.get(ReviewService);
    const [item] = await reviews.pending({ tenant: 'acme', capability: 'orders.cancel' });
    domain.rows.delete(1);
    await reviews.approve(item!.itemId, { id: 'staff:7', context: staff });
    await queue.idle();
    expect(domain.cancelled).toEqual([]);
    expect((await items.find(item!.itemId))?.status).toBe('refused');
    const denied = evidence.decisions().find((record) => record.stage === 'target_refresh');
    expect(denied).toMatchObject({ disposition: 'deny', reason: 'refresh: the target is gone', toolKind: 'deferred' });
    await moduleRef.close();
  });

  it('control: a refresh that finds the row permits and executes against it', async () => {
    const domain = orderDomain();
    const { moduleRef, execute, stages } = await boot(domain);
    const result = await execute();
    expect(result.executed).toBe(true);
    expect(domain.cancelled).toEqual([1]);
    expect(stages()).toEqual(['proposal:permit', 'target_refresh:permit', 'execution:permit']);
    await moduleRef.close();
  });

  it('control: the approved review item of an order that still exists executes', async () => {
    const domain = orderDomain({ reviewed: true });
    const { moduleRef, execute, items, queue } = await boot(domain);
    await execute();
    const reviews = moduleRef.get(ReviewService);
    const [item] = await reviews.pending({ tenant: 'acme', capability: 'orders.cancel' });
    await reviews.approve(item!.itemId, { id: 'staff:7', context: staff });
    await queue.idle();
    expect(domain.cancelled).toEqual([1]);
    expect((await items.find(item!.itemId))?.status).toBe('executed');
    await moduleRef.close();
  });

  it('control: a refresh that throws is still an application fault: it propagates unchanged, never a decision', async () => {
    const fault = new TypeError('replica unavailable');
    const domain = orderDomain({
      refresh: () => {
        throw fault;
      },
    });
    const { moduleRef, execute, stages } = await boot(domain);
    await expect(execute()).rejects.toBe(fault);
    expect(domain.cancelled).toEqual([]);
    expect(stages()).toEqual(['proposal:permit']);
    await moduleRef.close();
  });
});
