import { afterEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import {
  Customer,
  ONLY_PLACED_ORDERS_CAN_BE_CANCELLED,
  ORDER_NOT_FOUND,
  Order,
  StorefrontAbilityFactory,
  StorefrontContexts,
  Tenant,
  createCancelOrderTool,
  defineStorefrontAbility,
  createLookupOrderTool,
  manuallySecuredLookupOrder,
  seedStorefront,
  storefrontContext,
  storefrontEntities,
  storefrontMigrations,
} from './index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A private in-memory better-sqlite3 database, schema from the migrations (never synchronize), seeded. */
async function setup() {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: storefrontEntities,
    migrations: storefrontMigrations,
  });
  await dataSource.initialize();
  cleanups.push(() => dataSource.destroy());
  await dataSource.runMigrations({ transaction: 'each' });
  await seedStorefront(dataSource);
  const orders = dataSource.getRepository(Order);
  const order = async (id: number) => orders.findOneByOrFail({ id });
  return { dataSource, orders, order, factory: new StorefrontAbilityFactory(dataSource) };
}

describe('storefront schema and seed', () => {
  it('creates the tables from the migrations and seeds the story rows', async () => {
    const { dataSource, order } = await setup();
    expect(await dataSource.getRepository(Tenant).find({ order: { id: 'ASC' } })).toEqual([
      expect.objectContaining({ id: 'acme' }),
      expect.objectContaining({ id: 'globex' }),
    ]);
    const customers = await dataSource.getRepository(Customer).find({ order: { id: 'ASC' } });
    expect(customers.map(({ id, tenantId, role }) => [id, tenantId, role])).toEqual([
      [72, 'acme', 'customer'],
      [73, 'globex', 'customer'],
      [91, 'acme', 'customer'],
    ]);
    const orders = await dataSource.getRepository(Order).find({ order: { id: 'ASC' } });
    expect(
      orders.map(({ id, tenantId, customerId, status, version }) => [id, tenantId, customerId, status, version]),
    ).toEqual([
      [1001, 'acme', 91, 'placed', 1],
      [1002, 'acme', 72, 'placed', 1],
      [1003, 'globex', 73, 'placed', 1],
      [1004, 'acme', 72, 'shipped', 1],
    ]);
    expect((await order(1002)).total).toBe(1999);
  });

  it('leaves nothing for synchronize to change: the entities match the migrated schema', async () => {
    const { dataSource } = await setup();
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('seeding again changes nothing, not even a cancellation made since', async () => {
    const { dataSource, orders, order } = await setup();
    const cancelled = await order(1002);
    cancelled.status = 'cancelled';
    await orders.save(cancelled);
    await seedStorefront(dataSource);
    expect(await orders.count()).toBe(4);
    expect(await order(1002)).toMatchObject({ status: 'cancelled', version: 2 });
  });

  it('enforces foreign keys: an order needs an existing customer', async () => {
    const { orders } = await setup();
    await expect(
      orders.insert({ id: 2000, tenantId: 'acme', customerId: 999, status: 'placed', total: 1, description: 'x' }),
    ).rejects.toThrow(/FOREIGN KEY/);
  });

  it('reverts the migrations, dropping every storefront table', async () => {
    const { dataSource } = await setup();
    await dataSource.query('DELETE FROM storefront_orders');
    await dataSource.query('DELETE FROM storefront_customers');
    await dataSource.query('DELETE FROM storefront_tenants');
    for (const _ of storefrontMigrations) await dataSource.undoLastMigration();
    const tables = await dataSource.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'storefront_%'",
    );
    expect(tables).toEqual([]);
  });
});

describe('StorefrontAbilityFactory', () => {
  it('lets 72 view and cancel their own placed order 1002', async () => {
    const { factory, order } = await setup();
    const ability = await factory.createForContext(StorefrontContexts.customer72);
    const own = await order(1002);
    expect(ability.can('view', own)).toBe(true);
    expect(ability.can('cancel', own)).toBe(true);
  });

  it("denies 72 another customer's order 1001 in the same tenant", async () => {
    const { factory, order } = await setup();
    const ability = await factory.createForContext(StorefrontContexts.customer72);
    const other = await order(1001);
    expect(ability.can('view', other)).toBe(false);
    expect(ability.can('cancel', other)).toBe(false);
    expect(ability.relevantRuleFor('view', other)).toBeNull();
  });

  it('denies 72 an order of another tenant (1003)', async () => {
    const { factory, order } = await setup();
    const ability = await factory.createForContext(StorefrontContexts.customer72);
    expect(ability.can('view', await order(1003))).toBe(false);
  });

  it('denies cancelling the shipped order 1004 and gives the rule reason, while still allowing to view it', async () => {
    const { factory, order } = await setup();
    const ability = await factory.createForContext(StorefrontContexts.customer72);
    const shipped = await order(1004);
    expect(ability.can('view', shipped)).toBe(true);
    expect(ability.can('cancel', shipped)).toBe(false);
    expect(ability.relevantRuleFor('cancel', shipped)?.reason).toBe(ONLY_PLACED_ORDERS_CAN_BE_CANCELLED);
  });

  it('returns an all-deny ability for a customer claiming a tenant they do not belong to', async () => {
    const { factory, order } = await setup();
    const ability = await factory.createForContext(StorefrontContexts.customer72AtGlobex);
    expect(ability.rules).toEqual([]);
    expect(ability.can('view', await order(1002))).toBe(false);
    expect(ability.can('view', await order(1003))).toBe(false);
  });

  it('never grants an order of another tenant, even one naming the customer', async () => {
    const { dataSource } = await setup();
    const customer72 = await dataSource.getRepository(Customer).findOneByOrFail({ id: 72 });
    const foreign = Object.assign(new Order(), { id: 5000, tenantId: 'globex', customerId: 72, status: 'placed' });
    expect(defineStorefrontAbility(customer72, 'acme').can('view', foreign)).toBe(false);
    expect(defineStorefrontAbility(customer72, 'globex').rules).toEqual([]);
  });

  it.each([
    ['an unknown customer', storefrontContext(404, 'acme')],
    ['a missing tenant', { actor: { customerId: 72 }, tenant: null }],
    ['an actor that is not a storefront actor', { actor: { customerId: '72' }, tenant: 'acme' }],
  ])('returns an all-deny ability for %s', async (_, context) => {
    const { factory } = await setup();
    expect((await factory.createForContext(context)).rules).toEqual([]);
  });
});

describe('lookup_order definition tool (naive handler)', () => {
  it("leaks another customer's and another tenant's order when invoked directly", async () => {
    const { dataSource } = await setup();
    const lookup = createLookupOrderTool(dataSource);
    expect(lookup.name).toBe('lookup_order');
    expect(JSON.parse(await lookup.invoke({ orderId: 1001 }))).toMatchObject({
      id: 1001,
      description: 'Two synthetic trail lanterns, gift wrapped',
    });
    expect(JSON.parse(await lookup.invoke({ orderId: 1003 }))).toMatchObject({ id: 1003 });
  });
});

describe('cancel_order definition tool (naive handler)', () => {
  it("cancels another customer's order when invoked directly", async () => {
    const { dataSource, order } = await setup();
    const cancel = createCancelOrderTool(dataSource);
    expect(cancel.name).toBe('cancel_order');
    expect(JSON.parse(await cancel.invoke({ orderId: 1001 }))).toEqual({ id: 1001, status: 'cancelled' });
    expect((await order(1001)).status).toBe('cancelled');
  });
});

describe('manuallySecuredLookupOrder', () => {
  it("answers 72's request for 91's order exactly like a missing order", async () => {
    const { dataSource } = await setup();
    const lookup = manuallySecuredLookupOrder(dataSource, () => StorefrontContexts.customer72);
    expect(await lookup.invoke({ orderId: 1001 })).toBe(ORDER_NOT_FOUND);
    expect(await lookup.invoke({ orderId: 1003 })).toBe(ORDER_NOT_FOUND);
    expect(await lookup.invoke({ orderId: 9999 })).toBe(ORDER_NOT_FOUND);
  });

  it('shows 72 their own order', async () => {
    const { dataSource } = await setup();
    const lookup = manuallySecuredLookupOrder(dataSource, () => StorefrontContexts.customer72);
    expect(JSON.parse(await lookup.invoke({ orderId: 1002 }))).toEqual({
      id: 1002,
      status: 'placed',
      total: 1999,
      description: 'One synthetic rain jacket, size M',
    });
  });

  it('fails closed without an action context or with the wrong tenant', async () => {
    const { dataSource } = await setup();
    expect(await manuallySecuredLookupOrder(dataSource, () => undefined).invoke({ orderId: 1002 })).toBe(
      ORDER_NOT_FOUND,
    );
    expect(
      await manuallySecuredLookupOrder(dataSource, () => StorefrontContexts.customer72AtGlobex).invoke({
        orderId: 1002,
      }),
    ).toBe(ORDER_NOT_FOUND);
  });
});
