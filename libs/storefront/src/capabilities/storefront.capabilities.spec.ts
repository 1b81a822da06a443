import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type ActionContext,
  DEFAULT_PUBLIC_MESSAGE,
  InMemoryEvidenceRecorder,
  VerdictModule,
  VerdictService,
  InMemoryExecutionClaimStore,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { DataSource } from 'typeorm';
import {
  type CapturedToolCall,
  ONLY_PLACED_ORDERS_CAN_BE_CANCELLED,
  Order,
  OrderChangedError,
  StorefrontAbilityFactory,
  StorefrontCapabilities,
  StorefrontCapability,
  StorefrontContexts,
  capturedProposals,
  createLookupOrderTool,
  openSqliteStorefront,
} from '../index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const capabilityOf = {
  lookup_order: StorefrontCapability.ViewOrder,
  cancel_order: StorefrontCapability.CancelOrder,
  refresh_shipment: StorefrontCapability.RefreshShipment,
  escalate_order: StorefrontCapability.EscalateOrder,
} as const;

async function boot(dataSource?: DataSource) {
  const db = dataSource ?? (await openSqliteStorefront());
  if (dataSource === undefined) cleanups.push(() => db.destroy());
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        executionClaims: new InMemoryExecutionClaimStore(), // orders.cancel is at most once
        abilityFactory: new StorefrontAbilityFactory(db),
        evidence: new InMemoryEvidenceRecorder(),
      }),
      VerdictLangChainModule,
    ],
    providers: [{ provide: DataSource, useValue: db }, StorefrontCapabilities],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  return moduleRef;
}

async function setup() {
  const moduleRef = await boot();
  const dataSource = moduleRef.get(DataSource);
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  /** Replays a captured model tool call through Verdict as customer 72 of acme (unless told otherwise). */
  const replay = (call: CapturedToolCall, context: ActionContext = StorefrontContexts.customer72) =>
    contexts.run(context, () =>
      verdict.execute({ capability: capabilityOf[call.name], arguments: call.args, toolCallId: call.id }),
    );
  const order = (id: number) => dataSource.getRepository(Order).findOneByOrFail({ id });
  return { moduleRef, dataSource, contexts, replay, order };
}

describe('StorefrontCapabilities', () => {
  describe('orders.view', () => {
    it('shows 72 their own order as plain JSON', async () => {
      const { replay } = await setup();
      const result = await replay(capturedProposals.ownedView);
      expect(result.executed && result.output).toEqual({
        id: 1002,
        status: 'placed',
        total: 1999,
        description: 'One synthetic rain jacket, size M',
      });
    });

    it.each([
      ['crossCustomerView', /^view Order denied/],
      ['argumentSmuggling', /^view Order denied/],
      ['crossTenantView', /order not found/],
      ['malformed', /^invalid arguments/],
    ] as const)('denies %s at the proposal stage', async (name, reason) => {
      const { replay } = await setup();
      const result = await replay(capturedProposals[name]);
      expect(result.executed).toBe(false);
      expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
      expect(result.decision.reason).toMatch(reason);
    });
  });

  describe('orders.cancel', () => {
    it('cancels 72’s placed order with one conditional update that bumps the version', async () => {
      const { replay, order } = await setup();
      const result = await replay(capturedProposals.ownedCancel);
      expect(result.executed && result.output).toEqual({ id: 1002, status: 'cancelled' });
      expect(await order(1002)).toMatchObject({ status: 'cancelled', version: 2 });
    });

    it('cancels at most once per order version: a redelivered call on the order put back unversioned does not run', async () => {
      const { replay, order, dataSource } = await setup();
      const putBack = (version: number) =>
        dataSource.query(`UPDATE storefront_orders SET status = 'placed', version = ? WHERE id = 1002`, [version]);
      expect((await replay(capturedProposals.ownedCancel)).executed).toBe(true);
      await putBack(1); // the version the cancel was authorized at: the same logical operation again

      const redelivered = await replay(capturedProposals.ownedCancel);
      expect(redelivered.executed).toBe(false);
      expect(await order(1002)).toMatchObject({ status: 'placed', version: 1 });

      await putBack(3); // a new version: a new cancel, which runs
      expect((await replay(capturedProposals.ownedCancel)).executed).toBe(true);
      expect(await order(1002)).toMatchObject({ status: 'cancelled', version: 4 });
    });

    it("refuses to cancel 91's order and leaves it placed", async () => {
      const { replay, order } = await setup();
      const result = await replay(capturedProposals.crossCustomerCancel);
      expect(result.executed).toBe(false);
      expect(await order(1001)).toMatchObject({ status: 'placed', version: 1 });
    });

    it('refuses to cancel the shipped order 1004 and records the CASL rule reason', async () => {
      const { replay, order } = await setup();
      const result = await replay({ name: 'cancel_order', args: { orderId: 1004 }, id: 'call_cancel_1004' });
      expect(result.executed).toBe(false);
      expect(result.decision.reason).toContain(ONLY_PLACED_ORDERS_CAN_BE_CANCELLED);
      expect((await order(1004)).status).toBe('shipped');
    });

    it('cancels nothing when the order changed after it was authorized', async () => {
      const { moduleRef, order } = await setup();
      const stale = await order(1002);
      await moduleRef.get(DataSource).getRepository(Order).update({ id: 1002 }, { description: 'edited meanwhile' });
      const action = {
        capability: 'orders.cancel',
        target: stale,
        arguments: { orderId: 1002 },
        context: StorefrontContexts.customer72,
        executionIdentity: 'x',
      };
      await expect(moduleRef.get(StorefrontCapabilities).cancel(action)).rejects.toBeInstanceOf(OrderChangedError);
      expect((await order(1002)).status).toBe('placed');
    });
  });

  describe('bound lookup_order', () => {
    it('answers a cross-customer tool call with the public message only', async () => {
      const { moduleRef, dataSource, contexts } = await setup();
      const lookup = moduleRef
        .get(VerdictTools)
        .bound(createLookupOrderTool(dataSource), StorefrontCapability.ViewOrder);
      const denied = await contexts.run(StorefrontContexts.customer72, () =>
        lookup.invoke(capturedProposals.crossCustomerView.args),
      );
      expect(denied).toBe(
        JSON.stringify({
          status: 'not_executed',
          capability: 'orders.view',
          decision: 'deny',
          message: DEFAULT_PUBLIC_MESSAGE,
        }),
      );
      expect(denied).not.toContain('lanterns');
      const own = await contexts.run(StorefrontContexts.customer72, () =>
        lookup.invoke(capturedProposals.ownedView.args),
      );
      expect(JSON.parse(own)).toMatchObject({ id: 1002 });
    });
  });

  describe('host', () => {
    it('resolves against the DataSource of the application that declared the capability, side by side', async () => {
      const first = await setup();
      const second = await setup();
      const cancelled = await first.replay(capturedProposals.ownedCancel);
      expect(cancelled.executed).toBe(true);
      expect((await first.order(1002)).status).toBe('cancelled');
      expect((await second.order(1002)).status).toBe('placed');
      const again = await second.replay(capturedProposals.ownedCancel);
      expect(again.executed).toBe(true);
    });
  });
});
