/**
 * Type tests (ADR 0018), checked by `npm run typecheck`: every `@ts-expect-error` below must be an error, and
 * every other line must compile. The one runtime test only makes Jest accept the file.
 *
 * This program registers no `VerdictTypes`, as a library would see it: the actor is `unknown` unless a
 * context type is named. test/types/actor-augmentation.types.spec.ts compiles an application that registers one.
 */
import { Injectable } from '@nestjs/common';
import {
  type ActionContext,
  type ApprovalService,
  type AuthorizedAction,
  Capability,
  type DecisionRecord,
  type Disposition,
  type Envelope,
  type ExecutionResult,
  ExecutionTargetPolicy,
  type ProvenancePolicy,
  type ShadowDisposition,
  type VerdictActor,
  atMostOnce,
  defineCapability,
  fixedWindow,
  forbidStates,
  fromContext,
  fromProposal,
  requiresConfirmation,
  TrajectoryScope,
} from '@verdict/nestjs';
import { type StorefrontContext } from '@verdict/storefront';
import { IsInt } from 'class-validator';
import { z } from 'zod';

/** `true` only when `A` and `B` are the same type (not merely mutually assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(): T | undefined => undefined;

interface Order {
  readonly id: number;
  readonly tenantId: string;
  readonly version: number;
}
interface Customer {
  readonly id: number;
}
interface Product {
  readonly sku: string;
}
const orderArguments = z.object({ orderId: z.number().int(), note: z.string().optional() });
type OrderArguments = z.infer<typeof orderArguments>;

class OrderIdDto {
  @IsInt()
  orderId!: number;
}

const orderById = fromProposal<OrderArguments, Order>(({ arguments: a, context }) => ({
  id: a.orderId,
  tenantId: context.tenant ?? '',
  version: 1,
}));
const orderPolicy = ExecutionTargetPolicy.acceptStaleSnapshot<Order>({ name: 'order', identity: (order) => order.id });
const base = { description: 'd', action: 'view', subject: 'Order' } as const;

describe('type tests', () => {
  it('compile (see npm run typecheck)', () => expect(true).toBe(true));
});

// No registration: the actor is unknown, the tenant string | null. Nothing unsafe is implied.
expectType<Equal<VerdictActor, unknown>>();
expectType<Equal<ActionContext['tenant'], string | null>>();
fromContext((context) => {
  // @ts-expect-error the unregistered actor is unknown
  return context.actor.customerId;
});

// defineCapability: the schema's type and the resolver's target reach the executor.
export const viewOrder = defineCapability(
  { ...base, name: 'orders.view', arguments: orderArguments, resolveTarget: orderById, executionTarget: orderPolicy },
  (action) => {
    expectType<Equal<typeof action.arguments, { orderId: number; note?: string | undefined }>>();
    expectType<Equal<typeof action.target, Order>>();
    // @ts-expect-error a schema field that does not exist
    return action.arguments.customerId;
  },
);
expectType<
  Equal<Parameters<NonNullable<typeof viewOrder.executor>>[0], AuthorizedAction<OrderArguments, Order, ActionContext>>
>();

// A class-validator DTO: its instance type.
defineCapability(
  {
    ...base,
    name: 'orders.dto',
    arguments: OrderIdDto,
    resolveTarget: fromContext(() => ({ id: 1 }) as Customer),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Customer>({ name: 'c', identity: (c) => c.id }),
  },
  (action) => {
    expectType<Equal<typeof action.arguments, OrderIdDto>>();
    expectType<Equal<typeof action.target, Customer>>();
    return action.arguments.orderId + action.target.id;
  },
);

// A resolver typed for other arguments than the schema's does not fit.
defineCapability(
  {
    ...base,
    name: 'orders.mismatch',
    // @ts-expect-error the resolver reads arguments the schema does not produce
    arguments: z.object({ orderId: z.string() }),
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  },
  null,
);

// A target policy for another type than the resolver's does not fit.
defineCapability(
  {
    ...base,
    name: 'orders.other-target',
    arguments: orderArguments,
    // @ts-expect-error the resolver finds orders, the execution-target policy is for products
    resolveTarget: orderById,
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Product>({ name: 'p', identity: (p) => p.sku }),
  },
  null,
);

// Gates named with the capability's types read typed envelopes and targets; a gate of another type does not fit.
defineCapability(
  {
    ...base,
    name: 'orders.gated',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
    atMostOnce: atMostOnce<OrderArguments, Order>({
      name: 'once',
      key: ({ arguments: a }, order) => [a.orderId, order.version],
    }),
    requiresConfirmation: requiresConfirmation<OrderArguments, Order>({
      reason: 'r',
      bind: ({ arguments: a }, order) => ({ order: order.id, note: a.note ?? null }),
      // Unregistered actor: an annotated actorKey still fits.
      actorKey: (actor: { id: string }) => actor.id,
    }),
    // @ts-expect-error a rate limit keyed on another target type
    rateLimit: fixedWindow<OrderArguments, Product>({
      name: 'n',
      limit: 1,
      windowSeconds: 60,
      reason: 'r',
      key: (_envelope, product) => product.sku,
    }),
  },
  null,
);

// A library names its context type once (StorefrontContext) where it reads the actor; the capability takes it.
export const escalate = defineCapability(
  {
    ...base,
    name: 'orders.escalate',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
    atMostOnce: atMostOnce<OrderArguments, Order, StorefrontContext>({
      name: 'once',
      key: ({ context }, order) => [context.actor.customerId, order.id],
    }),
  },
  (action) => {
    expectType<Equal<typeof action.context, StorefrontContext>>();
    return action.context.actor.customerId;
  },
);
fromProposal<OrderArguments, Order, unknown, StorefrontContext>(({ context, arguments: a }) => {
  expectType<Equal<typeof context.actor.customerId, number>>();
  return { id: a.orderId, tenantId: context.tenant ?? '', version: context.actor.customerId };
});
// @ts-expect-error a numeric tenant is not an action context's
export type NumericTenant = ActionContext<unknown, number>;

// @Capability: the decorated method must accept what the pipeline hands over.
@Injectable()
export class OrderCapabilities {
  @Capability({
    ...base,
    name: 'orders.view',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  view(action: AuthorizedAction<OrderArguments, Order>) {
    return action.target.id;
  }

  @Capability({
    ...base,
    name: 'orders.view-id',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  viewId(action: AuthorizedAction<{ orderId: number }, { id: number }>) {
    return action.arguments.orderId + action.target.id;
  }

  // @ts-expect-error the schema's orderId is a number
  @Capability({
    ...base,
    name: 'orders.view-string',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  viewString(action: AuthorizedAction<{ orderId: string }, Order>) {
    return action.arguments.orderId;
  }

  // @ts-expect-error the schema produces no `extra` field
  @Capability({
    ...base,
    name: 'orders.view-extra',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  viewExtra(action: AuthorizedAction<OrderArguments & { extra: string }, Order>) {
    return action.arguments.extra;
  }

  // @ts-expect-error the target is an Order, not a Customer
  @Capability({
    ...base,
    name: 'orders.view-customer',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  viewCustomer(action: AuthorizedAction<OrderArguments, Customer & { name: string }>) {
    return action.target.name;
  }

  // @ts-expect-error the executor reads a StorefrontActor, the capability runs with an unknown actor
  @Capability({
    ...base,
    name: 'orders.view-actor',
    arguments: orderArguments,
    resolveTarget: orderById,
    executionTarget: orderPolicy,
  })
  viewActor(action: AuthorizedAction<OrderArguments, Order, StorefrontContext>) {
    return action.context.actor.customerId;
  }
}

// An envelope of the schema's type, named once, types a standalone gate callback.
export const bindOrder = (envelope: Envelope<OrderArguments>, order: Order) => ({
  order: order.id,
  requested: envelope.arguments.orderId,
});

// Inline, with no type named: `fromProposal(schema, resolve)` types the resolver from the schema, and the policy and
// the gates written in the capability take the schema's arguments and the resolver's target (ADR 0018).
const lookup = (id: number): Order => ({ id, tenantId: 'acme', version: 1 });
export const inlineCancel = defineCapability(
  {
    ...base,
    name: 'orders.inline',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: a, context: _context }) => {
      expectType<Equal<typeof a, OrderArguments>>();
      expectType<Equal<typeof _context, ActionContext>>();
      return lookup(a.orderId);
    }),
    executionTarget: ExecutionTargetPolicy.refresh({
      name: 'order-by-id',
      identity: (order) => ({ tenant: order.tenantId, id: order.id }),
      refresh: (order, _context) => {
        expectType<Equal<typeof order, Order>>();
        expectType<Equal<typeof _context, ActionContext>>();
        return lookup(order.id);
      },
    }),
    rateLimit: fixedWindow({
      name: 'per-order',
      limit: 2,
      windowSeconds: 60,
      reason: 'r',
      key: ({ arguments: a }, order) => [a.orderId, order.tenantId],
    }),
    atMostOnce: atMostOnce({ name: 'once', key: ({ arguments: a }, order) => [a.orderId, order.version] }),
    requiresConfirmation: requiresConfirmation({
      reason: 'r',
      bind: ({ arguments: a }, order) => {
        expectType<Equal<typeof a, OrderArguments>>();
        expectType<Equal<typeof order, Order>>();
        return { order: order.id, note: a.note ?? null };
      },
      describe: (_envelope, order) => `Cancel order ${order.id}`,
    }),
    forbidStates: forbidStates(
      {
        initial: { count: 0 },
        transitions: [{ when: { effect: 'tick' }, add: { count: 1 } }],
        forbidden: [{ id: 'too_many', all: [{ field: 'count', greater_than: 2 }] }],
      },
      (_envelope, _order) => {
        expectType<Equal<typeof _envelope.arguments, OrderArguments>>();
        expectType<Equal<typeof _order, Order>>();
        return null;
      },
      { scope: TrajectoryScope.conversation() },
    ),
  },
  (action) => {
    expectType<Equal<typeof action.arguments, OrderArguments>>();
    expectType<Equal<typeof action.target, Order>>();
    return action.target.version;
  },
);

// A DTO schema types the resolver too; `fromContext` needs no schema.
defineCapability(
  {
    ...base,
    name: 'orders.inline-dto',
    arguments: OrderIdDto,
    resolveTarget: fromProposal(OrderIdDto, ({ arguments: a }) => {
      expectType<Equal<typeof a, OrderIdDto>>();
      return lookup(a.orderId);
    }),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order', identity: (order) => order.version }),
  },
  (action) => action.target.version,
);
defineCapability(
  {
    ...base,
    name: 'customers.inline',
    arguments: orderArguments,
    resolveTarget: fromContext((): Customer => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
      name: 'customer',
      identity: (customer) => customer.id,
    }),
    atMostOnce: atMostOnce({ name: 'once', key: ({ arguments: a }, customer) => [a.orderId, customer.id] }),
  },
  (action) => {
    expectType<Equal<typeof action.target, Customer>>();
    return action.target.id;
  },
);

// Inline mistakes are caught where they are written.
defineCapability(
  {
    ...base,
    name: 'orders.inline-wrong-field',
    arguments: orderArguments,
    // @ts-expect-error the schema produces no customerId
    resolveTarget: fromProposal(orderArguments, ({ arguments: a }) => lookup(a.customerId)),
    executionTarget: orderPolicy,
  },
  null,
);
defineCapability(
  {
    ...base,
    name: 'orders.inline-wrong-target',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: a }) => lookup(a.orderId)),
    // @ts-expect-error an order has no sku
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order', identity: (order) => order.sku }),
    // @ts-expect-error the schema produces no sku either
    atMostOnce: atMostOnce({ name: 'once', key: ({ arguments: a }) => a.sku }),
  },
  null,
);
defineCapability(
  {
    ...base,
    name: 'orders.inline-other-schema',
    // @ts-expect-error the resolver is typed by another schema than the capability's
    arguments: orderArguments,
    resolveTarget: fromProposal(z.object({ sku: z.string() }), () => lookup(1)),
    executionTarget: orderPolicy,
  },
  null,
);

@Injectable()
export class InlineOrderCapabilities {
  readonly orders = new Map<number, Order>();

  @Capability({
    ...base,
    name: 'orders.inline-view',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: a }, self: InlineOrderCapabilities) =>
      self.orders.get(a.orderId)!,
    ),
    executionTarget: ExecutionTargetPolicy.refresh({
      name: 'order-by-id',
      identity: (order) => order.id,
      refresh: (order, _context, self: InlineOrderCapabilities) => self.orders.get(order.id)!,
    }),
    atMostOnce: atMostOnce({ name: 'once', key: (_envelope, order) => [order.id, order.version] }),
  })
  view(action: AuthorizedAction<OrderArguments, Order>) {
    return action.target.id;
  }

  // @ts-expect-error the inline resolver finds orders, the method expects customers
  @Capability({
    ...base,
    name: 'orders.inline-view-customer',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: a }) => lookup(a.orderId)),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order', identity: (order) => order.id }),
  })
  viewCustomer(action: AuthorizedAction<OrderArguments, Customer & { name: string }>) {
    return action.target.name;
  }
}

// The mark that lets the factories infer inline is not a way to call a policy: neither in types nor at run time.
describe('a policy built by a factory', () => {
  it('is not a function', () => {
    expect(typeof orderPolicy).toBe('object');
    // @ts-expect-error a policy cannot be called
    expect(() => orderPolicy()).toThrow(TypeError);
  });
});

// ApprovalService.pending lists the calls of one requester: a tool-call id is not globally unique (ADR 0015).
declare const approvals: ApprovalService;
declare const requester: ActionContext;
export const listings = () => [
  approvals.pending(['call_1'], requester),
  // @ts-expect-error the requester is required: a listing for nobody in particular would show anyone's calls
  approvals.pending(['call_1']),
  // @ts-expect-error nor is `undefined` a requester
  approvals.pending(['call_1'], undefined),
];

// Shadow mode (ADR 0098): `enforce` is a boolean; a provenance argument rule in shadow mode wraps a rule it could take
// bare, and a run's own decision is never a shadow disposition.
export const shadowedRules: ProvenancePolicy = {
  arguments: {
    iban: { rule: 'trusted_only', enforce: false },
    recipient: { rule: { derivedFrom: 'trusted', otherwise: 'require_confirmation' }, enforce: false },
    // @ts-expect-error a rule shadow mode wraps is still one of the rules
    note: { rule: 'trusted_everywhere', enforce: false },
  },
};
export const shadowedCapability = defineCapability(
  {
    name: 'orders.shadow-view',
    description: 'View an order',
    action: 'view',
    subject: 'Order',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: a }) => lookup(a.orderId)),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order', identity: (order) => order.id }),
    // @ts-expect-error enforce is a boolean, not a string from the environment
    enforce: 'false',
  },
  () => 'viewed',
);
declare const _result: ExecutionResult<string>;
expectType<Equal<typeof _result.decision.disposition, Disposition>>();
declare const _record: DecisionRecord;
expectType<Equal<typeof _record.disposition, Disposition | ShadowDisposition>>();
