import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Injectable } from '@nestjs/common';
import {
  type AbilityFactory,
  type AuthorizedAction,
  Capability,
  ExecutionTargetPolicy,
  TargetNotResolvable,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import { z } from 'zod';

/** The signed-in user: a customer of the helpdesk, or a support agent. */
export interface HelpdeskUser {
  readonly id: string;
  readonly role: 'customer' | 'support';
}

// Registered once for the application (ADR 0018): `context.actor.id` type-checks everywhere below.
declare module '@verdict/nestjs' {
  interface VerdictTypes {
    actor: HelpdeskUser;
    tenant: 'acme';
  }
}

export interface Ticket {
  readonly id: number;
  readonly tenant: 'acme';
  readonly customerId: string;
  readonly title: string;
  status: 'open' | 'closed';
}

/** The application's own data: two tickets of two customers. */
@Injectable()
export class TicketRepository {
  private readonly tickets = new Map<number, Ticket>([
    [1, { id: 1, tenant: 'acme', customerId: 'alice', title: 'Printer on fire', status: 'open' }],
    [2, { id: 2, tenant: 'acme', customerId: 'bob', title: 'Lost password', status: 'open' }],
  ]);
  /** Every run of the close executor, in order. */
  readonly closed: number[] = [];

  find(tenant: string, id: number): Ticket | undefined {
    const ticket = this.tickets.get(id);
    return ticket?.tenant === tenant ? { ...ticket } : undefined;
  }

  close(id: number): void {
    this.tickets.get(id)!.status = 'closed';
    this.closed.push(id);
  }
}

const ticketArguments = z.object({ ticketId: z.number().int().positive() });
type TicketArguments = z.infer<typeof ticketArguments>;

const ticketInTenant = fromProposal<TicketArguments, Ticket, TicketCapabilities>(
  ({ arguments: a, context }, self) =>
    self.tickets.find(context.tenant, a.ticketId) ?? TargetNotResolvable.throw('no such ticket'),
);
const ticketById = ExecutionTargetPolicy.refresh({
  name: 'ticket-by-id',
  identity: (ticket: Ticket) => ({ tenant: ticket.tenant, type: 'ticket', id: ticket.id }),
  refresh: (ticket: Ticket, _context, self: TicketCapabilities) =>
    self.tickets.find(ticket.tenant, ticket.id) ?? TargetNotResolvable.throw('ticket is gone'),
});

@Injectable()
export class TicketCapabilities {
  constructor(readonly tickets: TicketRepository) {}

  @Capability({
    name: 'tickets.view',
    description: 'View one of your tickets',
    action: 'view',
    subject: 'Ticket',
    arguments: ticketArguments,
    resolveTarget: ticketInTenant,
    executionTarget: ticketById,
  })
  view(action: AuthorizedAction<TicketArguments, Ticket>) {
    return {
      id: action.target.id,
      title: action.target.title,
      status: action.target.status,
      viewer: action.context.actor.id,
    };
  }

  @Capability({
    name: 'tickets.close',
    description: 'Close one of your tickets',
    action: 'close',
    subject: 'Ticket',
    arguments: ticketArguments,
    // Written inline with no type argument: the schema types the resolver, its Ticket types the rest.
    resolveTarget: fromProposal(
      ticketArguments,
      ({ arguments: a, context }, self: TicketCapabilities) =>
        self.tickets.find(context.tenant, a.ticketId) ?? TargetNotResolvable.throw('no such ticket'),
    ),
    executionTarget: ExecutionTargetPolicy.refresh({
      name: 'ticket-by-id',
      identity: (ticket) => ({ tenant: ticket.tenant, type: 'ticket', id: ticket.id }),
      refresh: (ticket, _context, self: TicketCapabilities) =>
        self.tickets.find(ticket.tenant, ticket.id) ?? TargetNotResolvable.throw('ticket is gone'),
    }),
    requiresConfirmation: requiresConfirmation({
      reason: 'Closing a ticket ends the conversation with support.',
      bind: (_envelope, ticket) => ({ ticket: ticket.id, status: ticket.status }),
      actorKey: (actor) => actor.id,
      describe: (_envelope, ticket) => `Close ticket ${ticket.id}`,
      subject: (_envelope, ticket) => ({ customerId: ticket.customerId }),
    }),
  })
  close(action: AuthorizedAction<TicketArguments, Ticket>) {
    this.tickets.close(action.target.id);
    return { closed: action.target.id, by: action.context.actor.id };
  }
}

/** CASL: customers view and close their own tickets and approve their own closes; support views every ticket. */
export const abilities: AbilityFactory = {
  createForContext: (context) => {
    const { can, build } = new AbilityBuilder(createMongoAbility);
    if (context.actor.role === 'support') {
      can('view', 'Ticket');
    } else {
      can('view', 'Ticket', { customerId: context.actor.id });
      can('close', 'Ticket', { customerId: context.actor.id });
      can('approve', 'Approval', { capability: 'tickets.close', customerId: context.actor.id });
    }
    return build();
  },
};
