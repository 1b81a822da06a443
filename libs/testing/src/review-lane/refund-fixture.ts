import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  type AuthorizedAction,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  type ReviewRequester,
  TargetNotResolvable,
  defineCapability,
  fromProposal,
  requiresReview,
} from '@verdict/nestjs';

/** A person of the refund domain: a customer who asks, or staff who review. */
export interface RefundActor {
  readonly id: string;
  readonly role: 'customer' | 'staff' | 'intern';
}

/** An order as the application's trusted store holds it. */
export interface RefundOrder {
  readonly id: number;
  readonly tenantId: string;
  readonly customerId: string;
  readonly total: number;
  readonly version: number;
}

/** Where executed refunds go: an array in one process, a table when several processes share it. */
export interface RefundLedger {
  record(action: AuthorizedAction<RefundArguments, RefundOrder>): Promise<void>;
}

export interface RefundArguments {
  readonly orderId: number;
  readonly amount: number;
}

/**
 * The review lane's test domain: `orders.refund` parks every refund for staff review, bound to the order's
 * id and version. Customers may refund their own orders; staff (not interns) may review orders of their
 * tenant. `revoked` removes an actor's rights (an authority change); `people` is the trusted directory
 * the worker rehydrates requesters from.
 */
export function refundFixture(ledger: RefundLedger, onExecute?: () => Promise<void>) {
  const orders = new Map<number, RefundOrder>([
    [1002, { id: 1002, tenantId: 'acme', customerId: 'customer:72', total: 900, version: 1 }],
    [1003, { id: 1003, tenantId: 'acme', customerId: 'customer:73', total: 40, version: 1 }],
  ]);
  const people = new Map<string, { actor: RefundActor; tenant: string }>([
    ['customer:72', { actor: { id: 'customer:72', role: 'customer' }, tenant: 'acme' }],
    ['customer:73', { actor: { id: 'customer:73', role: 'customer' }, tenant: 'acme' }],
    ['staff:7', { actor: { id: 'staff:7', role: 'staff' }, tenant: 'acme' }],
    ['staff:8', { actor: { id: 'staff:8', role: 'staff' }, tenant: 'acme' }],
    ['intern:9', { actor: { id: 'intern:9', role: 'intern' }, tenant: 'acme' }],
  ]);
  const revoked = new Set<string>();

  const abilityFactory = {
    createForContext(context: ActionContext) {
      const actor = context.actor as RefundActor;
      const { can, build } = new AbilityBuilder(createMongoAbility);
      if (!revoked.has(actor.id)) {
        if (actor.role === 'customer') can('refund', 'Order', { customerId: actor.id, tenantId: context.tenant });
        if (actor.role === 'staff') {
          can('review', 'Order', { tenantId: context.tenant });
          can('refund', 'Order', { tenantId: context.tenant });
        }
      }
      return build();
    },
  };

  const load = (tenant: string | null, id: number): RefundOrder => {
    const order = orders.get(id);
    return order !== undefined && order.tenantId === tenant ? { ...order } : TargetNotResolvable.throw('no such order');
  };

  const refund: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
    {
      name: 'orders.refund',
      description: 'Refund part of an order (reviewed by staff)',
      action: 'refund',
      subject: 'Order',
      mutates: true,
      arguments: z.object({ orderId: z.number().int(), amount: z.number().positive() }),
      resolveTarget: fromProposal(({ arguments: args, context }) => load(context.tenant, args.orderId)),
      executionTarget: ExecutionTargetPolicy.refresh<RefundOrder>({
        name: 'order-by-id',
        identity: (order) => ({ tenant: order.tenantId, order: order.id }),
        refresh: (order, context) => load(context.tenant, order.id),
      }),
      requiresReview: requiresReview<RefundArguments, RefundOrder, RefundActor>({
        bind: (_envelope, order) => ({ order: order.id, version: order.version }),
        reason: 'Refunds are reviewed by staff.',
        describe: (envelope, order) =>
          `Refund ${envelope.arguments.amount} EUR of order ${order.id} (${order.total} EUR)`,
        reviewer: { subject: (_envelope, order) => ({ tenantId: order.tenantId, orderId: order.id }) },
        actorKey: (actor) => actor.id,
      }),
    },
    async (action) => {
      await onExecute?.();
      await ledger.record(action);
      return `refunded ${action.arguments.amount} on order ${action.target.id}`;
    },
  );

  /** The same refund without review: for `VerdictService.enqueue`. */
  const resend: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
    { ...refund, name: 'orders.refund-unreviewed', requiresReview: undefined },
    refund.executor as never,
  );

  /** The trusted directory lookup the worker uses: the person as they are now, or `null` when gone. */
  const rehydrate = ({ actorKey, tenant }: ReviewRequester): ActionContext | null => {
    const person = typeof actorKey === 'string' ? people.get(actorKey) : undefined;
    if (person === undefined || person.tenant !== tenant) return null;
    return { actor: person.actor, tenant: person.tenant };
  };

  /** The action context of a known person. */
  const contextOf = (id: string, conversationId?: string): ActionContext => {
    const person = people.get(id)!;
    return { actor: person.actor, tenant: person.tenant, metadata: { conversationId } };
  };

  /** A changed order: a new version (paid out elsewhere, edited) after review. */
  const bumpVersion = (id: number) => {
    const order = orders.get(id)!;
    orders.set(id, { ...order, version: order.version + 1 });
  };

  /** The lane's actor key: the person's id. */
  const actorKey = (actor: RefundActor) => actor.id;

  return { refund, resend, actorKey, abilityFactory, rehydrate, contextOf, bumpVersion, orders, people, revoked };
}
