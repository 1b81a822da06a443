import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';

interface Row {
  readonly tenant: string | null;
  readonly id: number;
  readonly version: number;
}

/** A confirmed capability whose receipts are bound to the actor by `actorKey`. */
const confirmed = (name: string, subject: string, actorKey: (actor: any) => string) =>
  defineCapability<{ id: number }, Row, string>(
    {
      name,
      description: name,
      action: 'act',
      subject,
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal(({ arguments: a, context }): Row => ({
        tenant: context.tenant,
        id: a.id,
        version: 1,
      })),
      executionTarget: ExecutionTargetPolicy.refresh({
        name: `${name}-by-id`,
        identity: (row: Row) => ({ tenant: row.tenant, id: row.id }),
        refresh: (row: Row) => ({ ...row }),
      }),
      requiresConfirmation: requiresConfirmation({
        bind: (_envelope, row: Row) => ({ id: row.id }),
        reason: 'confirm',
        actorKey,
      }),
    },
    () => 'done',
  );

async function setup() {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'act', subject: 'all' }]) },
        approvals: new InMemoryApprovalReceiptStore(),
        capabilities: [
          confirmed('orders.cancel', 'Order', (actor: { customerId?: string }) => actor.customerId ?? ''),
          confirmed('invoices.refund', 'Invoice', (actor: { staffId?: string }) => actor.staffId ?? ''),
        ],
      }),
    ],
  }).compile();
  await moduleRef.init();
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const propose = (context: ActionContext, capability: string, toolCallId: string) =>
    contexts.run(context, () => verdict.execute({ capability, arguments: { id: 7 }, toolCallId }));
  return { propose, approvals: moduleRef.get(ApprovalService), close: () => moduleRef.close() };
}

const staff: ActionContext = {
  actor: { staffId: 's-1' },
  tenant: 'acme',
  metadata: { conversationId: 'staff-thread' },
};
const customer: ActionContext = {
  actor: { customerId: 'c-9' },
  tenant: 'acme',
  metadata: { conversationId: 'cust-thread' },
};

describe('ApprovalService lookups across capabilities with different actor keys', () => {
  it("finds each requester's own challenge when another capability's receipt collides on the tool-call id", async () => {
    const { propose, approvals, close } = await setup();
    await propose(staff, 'invoices.refund', 'call_0');
    await propose(customer, 'orders.cancel', 'call_0');

    // The customer's actor names nobody under the staff key, and the staff actor nobody under the customer key:
    // neither receipt is the other's, and neither lookup fails.
    expect(await approvals.challengeForToolCall('call_0', staff)).toMatchObject({ capability: 'invoices.refund' });
    expect(await approvals.challengeForToolCall('call_0', customer)).toMatchObject({ capability: 'orders.cancel' });
    expect((await approvals.pending(['call_0'], staff)).map((pending) => pending.capability)).toEqual([
      'invoices.refund',
    ]);
    await close();
  });
});
