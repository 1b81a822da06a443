import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Injectable,
  Module,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ActionContextInterceptor,
  type AuthorizedAction,
  type CapabilityOptions,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  InMemoryExecutionClaimStore,
} from '@verdict/nestjs';
import {
  Order,
  StorefrontAbilityFactory,
  StorefrontCapabilities,
  findOrderInTenant,
  openSqliteStorefront,
} from '@verdict/storefront';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { z } from 'zod';

/** Stands in for the application's authentication: the signed-in customer comes from a header the guard trusts. */
@Injectable()
class SignedInCustomer implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    req.user = { customerId: Number(req.headers['x-customer']), tenant: String(req.headers['x-tenant']) };
    return true;
  }
}

/** The assistant's tool-call endpoint: the model's proposal in the body, the actor from the session. */
@Controller('assistant')
@UseGuards(SignedInCustomer)
@UseInterceptors(ActionContextInterceptor)
class AssistantController {
  constructor(private readonly verdict: VerdictService) {}

  @Post('tool-calls')
  async toolCall(@Body() proposal: { capability: string; arguments: unknown; toolCallId?: string }) {
    const result = await this.verdict.execute(proposal);
    return result.executed
      ? { executed: true, output: result.output }
      : { executed: false, decision: result.decision.disposition, stage: result.decision.stage };
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Storefront capabilities plus variants whose refresh misbehaves, to prove the later gates. */
async function setup() {
  const dataSource = await openSqliteStorefront();
  cleanups.push(() => dataSource.destroy());
  const executed: AuthorizedAction<unknown, Order>[] = [];
  const hooks: { betweenProposalAndRefresh?: () => Promise<void> } = {};
  const byId = fromProposal<{ orderId: number }, Order>(
    async ({ arguments: args, context }) => (await findOrderInTenant(dataSource, context.tenant, args.orderId))!,
  );
  const base = (
    name: string,
    refresh: (order: Order) => Promise<Order>,
  ): CapabilityOptions<{ orderId: number }, Order> => ({
    name,
    description: name,
    action: 'view',
    subject: 'Order',
    arguments: z.object({ orderId: z.number().int() }),
    resolveTarget: byId,
    executionTarget: ExecutionTargetPolicy.refresh<Order>({
      name: 'order-primary-key',
      identity: (o) => ({ tenant: o.tenantId, type: 'order', id: o.id }),
      refresh,
    }),
  });
  const record = (action: AuthorizedAction<unknown, Order>) => {
    executed.push(action);
    return action.target.id;
  };
  const variants = [
    // A refresh that reads by a mutable column instead of the primary key: it can land on another row.
    defineCapability(
      base('orders.view_substituting', async (order) => (await findOrderInTenant(dataSource, order.tenantId, 1004))!),
      record,
    ),
    // A concurrent write between proposal and refresh moves the order to another customer.
    defineCapability(
      base('orders.view_contended', async (order) => {
        await hooks.betweenProposalAndRefresh?.();
        return (await findOrderInTenant(dataSource, order.tenantId, order.id))!;
      }),
      record,
    ),
    // A resolver that hits an application fault (a broken query).
    defineCapability(
      {
        ...base('orders.view_faulty', async (o) => o),
        resolveTarget: fromProposal(() => dataSource.query('SELECT * FROM no_such_table')),
      },
      record,
    ),
  ];
  const evidence = new InMemoryEvidenceRecorder();

  @Module({
    controllers: [AssistantController],
    providers: [{ provide: DataSource, useValue: dataSource }, StorefrontCapabilities],
  })
  class AssistantModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        executionClaims: new InMemoryExecutionClaimStore(), // orders.cancel is at most once
        abilityFactory: new StorefrontAbilityFactory(dataSource),
        evidence,
        capabilities: variants,
        resolveContext: (context) => {
          const { customerId, tenant } = context.switchToHttp().getRequest().user;
          return { actor: { customerId }, tenant };
        },
      }),
      AssistantModule,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  cleanups.push(() => app.close());
  const as72 = (body: object) =>
    request(app.getHttpServer())
      .post('/assistant/tool-calls')
      .set('x-customer', '72')
      .set('x-tenant', 'acme')
      .send(body);
  const order = (id: number) => dataSource.getRepository(Order).findOneByOrFail({ id });
  return { as72, executed, hooks, dataSource, order, evidence };
}

describe('storefront assistant (HTTP, SQLite)', () => {
  it('cancels the owned order once and refuses the foreign one', async () => {
    const { as72, order } = await setup();
    const own = await as72({ capability: 'orders.cancel', arguments: { orderId: 1002 }, toolCallId: 'c1' }).expect(201);
    expect(own.body).toEqual({ executed: true, output: { id: 1002, status: 'cancelled' } });
    const foreign = await as72({ capability: 'orders.cancel', arguments: { orderId: 1001 }, toolCallId: 'c2' }).expect(
      201,
    );
    expect(foreign.body).toEqual({ executed: false, decision: 'deny', stage: 'proposal' });
    expect((await order(1002)).status).toBe('cancelled');
    expect((await order(1001)).status).toBe('placed');
  });

  it('denies resource substitution between proposal and refresh at target_refresh; the executor never runs', async () => {
    const { as72, executed, evidence } = await setup();
    const response = await as72({ capability: 'orders.view_substituting', arguments: { orderId: 1002 } }).expect(201);
    expect(response.body).toEqual({ executed: false, decision: 'deny', stage: 'target_refresh' });
    expect(executed).toHaveLength(0);
    expect(evidence.decisions().at(-1)).toMatchObject({ stage: 'target_refresh', identityMatch: false });
  });

  it('denies at execution when the order changed hands between proposal and execution', async () => {
    const { as72, executed, hooks, dataSource } = await setup();
    hooks.betweenProposalAndRefresh = async () =>
      void (await dataSource.getRepository(Order).update({ id: 1002 }, { customerId: 91 }));
    const response = await as72({ capability: 'orders.view_contended', arguments: { orderId: 1002 } }).expect(201);
    expect(response.body).toEqual({ executed: false, decision: 'deny', stage: 'execution' });
    expect(executed).toHaveLength(0);
  });

  it("lets a resolver's unexpected error propagate as a server error, with nothing executed and no decision recorded", async () => {
    const { as72, executed, evidence } = await setup();
    await as72({ capability: 'orders.view_faulty', arguments: { orderId: 1002 } }).expect(500);
    expect(executed).toHaveLength(0);
    expect(evidence.decisions()).toHaveLength(0);
  });

  it('denies invalid arguments at the proposal stage', async () => {
    const { as72, order } = await setup();
    const response = await as72({
      capability: 'orders.cancel',
      arguments: { orderId: 'DROP TABLE storefront_orders' },
    }).expect(201);
    expect(response.body).toEqual({ executed: false, decision: 'deny', stage: 'proposal' });
    expect((await order(1002)).status).toBe('placed');
  });

  it("ignores an actor or tenant supplied in the model's arguments", async () => {
    const { as72, order } = await setup();
    const response = await as72({
      capability: 'orders.cancel',
      arguments: { orderId: 1001, customerId: 91, tenant: 'acme', actor: { customerId: 91 } },
    }).expect(201);
    expect(response.body).toEqual({ executed: false, decision: 'deny', stage: 'proposal' });
    expect((await order(1001)).status).toBe('placed');
  });
});
