import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  ActionContextStore,
  type AuthorizedAction,
  type ActionContext,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  TargetNotResolvable,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { StorefrontAbilityFactory } from '../../libs/storefront/src/authorization/storefront-ability.factory.js';
import { StorefrontContexts } from '../../libs/storefront/src/authorization/storefront-contexts.js';
import { Customer } from '../../libs/storefront/src/entities/customer.entity.js';
import { type Order } from '../../libs/storefront/src/entities/order.entity.js';
import { findOrderInTenant } from '../../libs/storefront/src/orders/find-order-in-tenant.js';
import { openSqliteStorefront } from '../../libs/storefront/src/seed/open-sqlite-storefront.js';
import type { DataSource } from 'typeorm';

// The CASL subject-type check (docs/architecture.md step 3): a target must be detected as the capability's subject.
// Here the storefront's rules let customer 72 view their own Customer record, so a Customer that reaches an
// Order capability would pass `ability.can('view', …)`: only the subject-type check refuses it.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type RecordArguments = { recordId: number };

/**
 * A record lookup with a bug an application could ship: it reads the orders table, and falls back to the
 * customers table when no order has that id, so `recordId: 72` yields customer 72's own entity.
 */
async function findRecord(dataSource: DataSource, tenant: string | null, id: number): Promise<Order | Customer> {
  const order = await findOrderInTenant(dataSource, tenant, id);
  const customer =
    order ??
    (typeof tenant === 'string' ? await dataSource.getRepository(Customer).findOneBy({ id, tenantId: tenant }) : null);
  return customer ?? TargetNotResolvable.throw('no record with that id');
}

async function setup() {
  const dataSource = await openSqliteStorefront();
  cleanups.push(() => dataSource.destroy());
  const shown: AuthorizedAction<RecordArguments, Order | Customer>[] = [];
  const viewRecord = defineCapability<RecordArguments, Order | Customer, { id: number }>(
    {
      name: 'orders.view_record',
      description: "View one of the signed-in customer's orders by record id",
      action: 'view',
      subject: 'Order',
      arguments: z.object({ recordId: z.number().int().positive() }),
      resolveTarget: fromProposal(({ arguments: args, context }) =>
        findRecord(dataSource, context.tenant, args.recordId),
      ),
      executionTarget: ExecutionTargetPolicy.refresh<Order | Customer>({
        name: 'record-by-id',
        identity: (record) => ({ tenant: record.tenantId, id: record.id }),
        refresh: (record) => findRecord(dataSource, record.tenantId, record.id),
      }),
    },
    (action) => {
      shown.push(action);
      return { id: action.target.id };
    },
  );
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: new StorefrontAbilityFactory(dataSource),
        evidence: new InMemoryEvidenceRecorder(),
        capabilities: [viewRecord],
      }),
    ],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const view = (recordId: number, context: ActionContext = StorefrontContexts.customer72) =>
    contexts.run(context, () => verdict.execute({ capability: 'orders.view_record', arguments: { recordId } }));
  return {
    view,
    shown,
    ability: (context: ActionContext) => new StorefrontAbilityFactory(dataSource).createForContext(context),
    dataSource,
  };
}

describe('CASL subject type of a resolved entity', () => {
  it('shows customer 72 their own order through the record lookup (control)', async () => {
    const { view, shown } = await setup();
    const result = await view(1002);
    expect(result).toMatchObject({ executed: true, output: { id: 1002 } });
    expect(shown).toHaveLength(1);
  });

  it('refuses a Customer entity that reached an Order capability, although the actor may view that customer', async () => {
    const { view, shown, ability, dataSource } = await setup();
    const customer72 = await dataSource.getRepository(Customer).findOneByOrFail({ id: 72 });
    // Without the subject-type check, CASL would have let this through.
    expect((await ability(StorefrontContexts.customer72)).can('view', customer72)).toBe(true);

    const result = await view(72);

    expect(result).toMatchObject({
      executed: false,
      decision: { disposition: 'deny', stage: 'proposal', reason: 'target is a Customer, capability expects a Order' },
    });
    expect(shown).toHaveLength(0);
  });
});
