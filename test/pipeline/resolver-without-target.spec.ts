import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import { ExecutionTargetPolicy, defineCapability, fromProposal } from '@verdict/nestjs';
import { createVerdictTestingModule } from '@verdict/nestjs/testing';

// docs/architecture.md, step 2: a resolver that answers no object resolved no target. The call is denied (fail
// closed), in shadow mode too; it never runs the executor on a missing row.

interface Order {
  readonly id: number;
  readonly tenant: string;
}

const orders = new Map<number, Order>([[1, { id: 1, tenant: 'acme' }]]);

function lookup(enforce: boolean, executed: number[]) {
  return defineCapability(
    {
      name: 'orders.cancel',
      description: 'Cancel an order',
      action: 'cancel',
      subject: 'Order',
      arguments: z.object({ orderId: z.number() }),
      // A findOne that found nothing answers null: no TargetNotResolvable thrown.
      resolveTarget: fromProposal<{ orderId: number }, Order | null>(
        ({ arguments: a }) => orders.get(a.orderId) ?? null,
      ),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order-id', identity: (o) => o?.id ?? null }),
      enforce,
    },
    (action) => void executed.push(action.arguments.orderId),
  );
}

async function run(orderId: number, enforce = true) {
  const executed: number[] = [];
  const verdict = await createVerdictTestingModule({
    abilityFactory: { createForContext: () => createMongoAbility([{ action: 'cancel', subject: 'Order' }]) },
    capabilities: [lookup(enforce, executed)],
  });
  const result = await verdict.as({ actor: { id: 'alice' }, tenant: 'acme' }).execute({
    capability: 'orders.cancel',
    arguments: { orderId },
  });
  return { result, executed, reasons: verdict.evidence.decisions().map((record) => record.reason) };
}

describe('a resolver that answers no object', () => {
  it('attack: a missing row (null) is denied, not executed', async () => {
    const { result, executed, reasons } = await run(404);
    expect(result.executed).toBe(false);
    expect(result.decision).toMatchObject({ disposition: 'deny' });
    expect(executed).toEqual([]);
    expect(reasons).toContain('target is not an object');
  });

  it('attack: in shadow mode too (enforce: false): integrity is never softened', async () => {
    const { result, executed } = await run(404, false);
    expect(result.executed).toBe(false);
    expect(executed).toEqual([]);
  });

  it('control: a row the resolver found is executed', async () => {
    const { result, executed } = await run(1);
    expect(result.executed).toBe(true);
    expect(executed).toEqual([1]);
  });
});
