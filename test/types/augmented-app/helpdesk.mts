/**
 * An application that registers its actor and tenant once (ADR 0018): compiled on its own by
 * test/types/actor-augmentation.types.spec.ts, since an augmentation is global to the program that sees it.
 * Every `@ts-expect-error` must be an error; every other line must compile.
 */
import { Injectable } from '@nestjs/common';
import {
  type AbilityFactory,
  type ActionContext,
  ActionContextStore,
  type AuthorizedAction,
  Capability,
  ExecutionTargetPolicy,
  TrajectoryScope,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromContext,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import { z } from 'zod';

interface HelpdeskUser {
  readonly customerId: number;
  readonly role: 'agent' | 'customer';
}

declare module '@verdict/nestjs' {
  interface VerdictTypes {
    actor: HelpdeskUser;
    tenant: 'acme' | 'globex';
  }
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(): T | undefined => undefined;

interface Ticket {
  readonly id: number;
  readonly customerId: number;
  readonly tenant: 'acme' | 'globex';
}
const ticketArguments = z.object({ ticketId: z.number().int() });
type TicketArguments = z.infer<typeof ticketArguments>;

expectType<Equal<ActionContext['actor'], HelpdeskUser>>();
expectType<Equal<ActionContext['tenant'], 'acme' | 'globex'>>();

// Entering a context: only the registered actor and tenant.
declare const contexts: ActionContextStore;
contexts.run({ actor: { customerId: 72, role: 'customer' }, tenant: 'acme' }, () => undefined);
// @ts-expect-error an actor of another shape
contexts.run({ actor: { id: 'alice' }, tenant: 'acme' }, () => undefined);
// @ts-expect-error a tenant the application does not have
contexts.run({ actor: { customerId: 72, role: 'customer' }, tenant: 'initech' }, () => undefined);

// Every callback that sees the context reads the actor without a cast.
export const abilities: AbilityFactory = {
  createForContext: (context) => {
    expectType<Equal<typeof context.actor, HelpdeskUser>>();
    throw new Error(`not built here: ${context.actor.customerId}`);
  },
};
const ticketById = fromProposal<TicketArguments, Ticket>(({ arguments: a, context }) => ({
  id: a.ticketId,
  customerId: context.actor.customerId,
  tenant: context.tenant,
}));
const ticketPolicy = ExecutionTargetPolicy.refresh<Ticket>({
  name: 'ticket-by-id',
  identity: (ticket, context) => ({ tenant: context.tenant, id: ticket.id }),
  refresh: (ticket, context) => ({ ...ticket, customerId: context.actor.customerId }),
});
export const perCustomer = TrajectoryScope.key('customer', (context) => ({
  tenant: context.tenant,
  customer: context.actor.customerId,
}));
export const myTickets = fromContext(
  (context) => ({ id: 0, customerId: context.actor.customerId, tenant: context.tenant }) satisfies Ticket,
);

@Injectable()
export class TicketCapabilities {
  @Capability({
    name: 'tickets.close',
    description: 'Close one of your tickets',
    action: 'close',
    subject: 'Ticket',
    arguments: ticketArguments,
    resolveTarget: ticketById,
    executionTarget: ticketPolicy,
    rateLimit: fixedWindow({
      name: 'closes',
      limit: 5,
      windowSeconds: 3600,
      reason: 'budget',
      key: ({ context }) => context.actor.customerId,
    }),
    atMostOnce: atMostOnce<TicketArguments, Ticket>({
      name: 'close',
      key: ({ context }, ticket) => [context.actor.customerId, ticket.id],
    }),
    requiresConfirmation: requiresConfirmation<TicketArguments, Ticket>({
      reason: 'Closing cannot be undone.',
      bind: ({ arguments: a }, ticket) => ({ ticket: ticket.id, asked: a.ticketId }),
      actorKey: (actor) => actor.customerId,
    }),
  })
  close(action: AuthorizedAction<TicketArguments, Ticket>) {
    expectType<Equal<typeof action.context.actor, HelpdeskUser>>();
    return action.context.actor.role === 'agent' || action.target.customerId === action.context.actor.customerId;
  }

  // @ts-expect-error the executor expects another actor than the registered one
  @Capability({
    name: 'tickets.view',
    description: 'd',
    action: 'view',
    subject: 'Ticket',
    arguments: ticketArguments,
    resolveTarget: ticketById,
    executionTarget: ticketPolicy,
  })
  view(action: AuthorizedAction<TicketArguments, Ticket, ActionContext<{ id: string }>>) {
    return action.context.actor.id;
  }
}

defineCapability(
  {
    name: 'tickets.reopen',
    description: 'd',
    action: 'reopen',
    subject: 'Ticket',
    arguments: ticketArguments,
    resolveTarget: ticketById,
    executionTarget: ticketPolicy,
  },
  (action) => {
    expectType<Equal<typeof action.arguments, TicketArguments>>();
    // @ts-expect-error the registered actor has no email
    return action.context.actor.email;
  },
);
