import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type ApprovalReceiptStore,
  ApprovalService,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  TargetNotResolvable,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';

/** An invoice any member of its tenant's finance team may refund: several actors are authorized on one resource. */
export interface Invoice {
  readonly tenant: string;
  readonly id: number;
  readonly version: number;
}

/** A finance team member; `id` is all the ability reads. */
export interface Member {
  readonly id: string;
}

/** A member's context in `tenant`, in conversation `conversation` when given. */
export function member(id: string, tenant = 'acme', conversation?: string): ActionContext<Member> {
  return conversation === undefined
    ? { actor: { id }, tenant }
    : { actor: { id }, tenant, metadata: { conversationId: conversation } };
}

/**
 * `invoices.refund` behind verified confirmation whose `bind` returns only the resource (the invoice
 * and its version): what the application binds says nothing about who asked. `maxPending` is passed
 * through to `requiresConfirmation` when given.
 */
export async function sharedInvoiceFixture(options: {
  store: ApprovalReceiptStore;
  maxPending?: number;
  actorKey?: (actor: any) => any;
}) {
  const invoices = new Map<string, Invoice>([
    ['acme/7', { tenant: 'acme', id: 7, version: 1 }],
    ['globex/7', { tenant: 'globex', id: 7, version: 1 }],
  ]);
  const refunded: Array<{ by: unknown; invoice: number; amountCents: number }> = [];
  let now = new Date('2026-03-01T09:00:00.000Z');
  const load = (tenant: string, id: number) =>
    invoices.get(`${tenant}/${id}`) ?? TargetNotResolvable.throw('invoice not found');
  const refund = defineCapability(
    {
      name: 'invoices.refund',
      description: 'Refund part of an invoice',
      action: 'refund',
      subject: 'Invoice',
      arguments: z.object({ invoiceId: z.number().int(), amountCents: z.number().int().positive() }),
      resolveTarget: fromProposal<{ invoiceId: number }, Invoice>(({ arguments: args, context }) => ({
        ...load(context.tenant!, args.invoiceId),
      })),
      executionTarget: ExecutionTargetPolicy.refresh<Invoice>({
        name: 'invoice-by-id',
        identity: (invoice) => ({ tenant: invoice.tenant, id: invoice.id }),
        refresh: (invoice) => ({ ...load(invoice.tenant, invoice.id) }),
      }),
      requiresConfirmation: requiresConfirmation<{ invoiceId: number }, Invoice>({
        bind: (_envelope, invoice) => ({ invoice: invoice.id, version: invoice.version }),
        reason: 'Refunds move money.',
        ttlSeconds: 600,
        describe: (_envelope, invoice) => `Refund on invoice ${invoice.id}`,
        ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
        ...(options.actorKey === undefined ? {} : { actorKey: options.actorKey }),
      }),
    },
    (action) => {
      const { amountCents } = action.arguments as { amountCents: number };
      refunded.push({ by: action.context.actor, invoice: (action.target as Invoice).id, amountCents });
      return `refunded ${amountCents}`;
    },
  );
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('refund', 'Invoice', { tenant: context.tenant });
      return build();
    },
  };
  const evidence = new InMemoryEvidenceRecorder();
  @Module({})
  class InvoicesModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        evidence,
        approvals: options.store,
        capabilities: [refund],
        clock: () => now,
        publicMessage: 'Not done.',
      }),
      InvoicesModule,
    ],
  }).compile();
  await moduleRef.init();
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (
    context: ActionContext,
    toolCallId: string,
    args: { invoiceId: number; amountCents: number },
    explicitApproval = false,
  ) =>
    contexts.run(context, () =>
      verdict.execute({ capability: 'invoices.refund', arguments: args, toolCallId }, { explicitApproval }),
    );
  /**
   * Approves, as `by`, the single pending receipt of `toolCallId` that `requester` (the proposing actor's
   * context, conversation included) holds; fails the test when there is none.
   */
  const approve = async (toolCallId: string, requester: ActionContext, by = 'member:ana') => {
    const challenge = await approvals.challengeForToolCall(toolCallId, requester);
    if (challenge === null) throw new Error(`no single pending approval for ${toolCallId}`);
    const transition = await approvals.approve(challenge.receiptId, toolCallId, by);
    if (transition.outcome !== 'approved') throw new Error(`the approval answered ${transition.outcome}`);
    return challenge;
  };
  return {
    invoices,
    refunded,
    evidence,
    approvals,
    propose,
    approve,
    now: () => now,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    close: () => moduleRef.close(),
  };
}
