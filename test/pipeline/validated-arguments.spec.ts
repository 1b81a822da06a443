import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type ArgumentSchema,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictModule,
  VerdictService,
  defineCapability,
  fingerprint,
  fromProposal,
} from '@verdict/nestjs';

/**
 * Step 1: what the executor receives (and what is fingerprinted, bound to approvals and field-authorized) is the
 * value the argument schema checked, whatever the schema: a DTO's class-to-plain `@Transform` does not run again
 * after validation (ADR 0178), and a zod schema with an async refinement validates like any other.
 */

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };

/** The model writes euros; the application keeps cents: at most 1,000 EUR (100,000 cents). */
const toCents = ({ value }: { value: unknown }) => (typeof value === 'number' ? Math.round(value * 100) : value);

class RefundLine {
  @IsString()
  sku!: string;

  @Transform(toCents)
  @IsInt()
  @Min(1)
  @Max(100_000)
  amountCents!: number;
}

class Refund {
  @IsInt()
  orderId!: number;

  @Transform(toCents)
  @IsInt()
  @Min(1)
  @Max(100_000)
  amountCents!: number;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => RefundLine)
  lines?: RefundLine[];
}

class Address {
  @IsString()
  @Expose({ name: 'postal_code' })
  postalCode!: string;

  @IsString()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  city!: string;
}

/** An ordinary DTO: renamed properties, an excluded one, nested DTOs with `@Type`, an array of them. */
class Shipment {
  @IsInt()
  @Expose({ name: 'order_id' })
  orderId!: number;

  @IsString()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value), {
    toClassOnly: true,
  })
  carrier!: string;

  @IsOptional()
  @IsString()
  @Exclude({ toPlainOnly: true })
  internalNote?: string;

  @ValidateNested()
  @Type(() => Address)
  to!: Address;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Address)
  stops?: Address[];
}

async function boot(schema: ArgumentSchema) {
  const evidence = new InMemoryEvidenceRecorder();
  const executed: unknown[] = [];
  const definition = defineCapability(
    {
      name: 'orders.act',
      description: 'Act on an order',
      action: 'update',
      subject: 'Order',
      arguments: schema,
      resolveTarget: fromProposal(() => ({ id: 1 })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'order',
        identity: (order: { id: number }) => order.id,
      }),
    },
    (action) => {
      executed.push(action.arguments);
      return 'done';
    },
  );
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'update', subject: 'Order' }]) },
        evidence,
        capabilities: [definition],
      }),
    ],
  }).compile();
  await moduleRef.init();
  const propose = (args: object) =>
    moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'orders.act', arguments: args }));
  return { moduleRef, evidence, executed, propose };
}

describe('a DTO argument class: the executor receives the values class-validator checked', () => {
  it('attack: a @Transform that applies both ways does not run again on the validated value', async () => {
    const { moduleRef, evidence, executed, propose } = await boot(Refund);

    const refund = await propose({ orderId: 7, amountCents: 500, lines: [{ sku: 'a-1', amountCents: 200 }] });

    expect(refund.executed).toBe(true);
    // 500 EUR is 50,000 cents (checked against @Max(100_000)), never 5,000,000.
    const validated = { orderId: 7, amountCents: 50_000, lines: [{ sku: 'a-1', amountCents: 20_000 }] };
    expect(executed).toEqual([validated]);
    expect(evidence.decisions()[0]).toMatchObject({ stage: 'proposal', disposition: 'permit' });
    expect(evidence.decisions()[0].argumentsFingerprint).toBe(fingerprint(validated));
    await moduleRef.close();
  });

  it('control: a value the schema refuses after the transform is still a recorded deny at proposal', async () => {
    const { moduleRef, evidence, executed, propose } = await boot(Refund);

    const over = await propose({ orderId: 7, amountCents: 5_000 });

    expect(over.executed).toBe(false);
    expect(over.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
    expect(evidence.decisions()).toHaveLength(1);
    expect(executed).toEqual([]);
    await moduleRef.close();
  });

  it('control: a DTO with @Expose renames, an @Exclude, nested @Type DTOs and arrays is written as before', async () => {
    const { moduleRef, executed, propose } = await boot(Shipment);

    const shipped = await propose({
      order_id: 7,
      carrier: 'DHL',
      internalNote: 'fragile',
      to: { postal_code: '75001', city: ' Paris ' },
      stops: [{ postal_code: '69001', city: 'Lyon' }],
    });

    expect(shipped.executed).toBe(true);
    expect(executed).toEqual([
      {
        order_id: 7,
        carrier: 'dhl',
        to: { postal_code: '75001', city: 'Paris' },
        stops: [{ postal_code: '69001', city: 'Lyon' }],
      },
    ]);
    const misnamed = await propose({ orderId: 7, carrier: 'dhl', to: { postal_code: '75001', city: 'Paris' } });
    expect(misnamed.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
    await moduleRef.close();
  });
});

describe('a zod argument schema with an async refinement validates like any other', () => {
  const positive = z.object({ id: z.number().refine(async (id) => Promise.resolve(id > 0)) });

  it('attack: arguments the async refinement refuses are a recorded deny at proposal', async () => {
    const { moduleRef, evidence, executed, propose } = await boot(positive);

    const refused = await propose({ id: -1 });

    expect(refused.executed).toBe(false);
    expect(refused.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
    expect(refused.decision.reason).toContain('invalid arguments: custom at');
    expect(evidence.decisions()).toEqual([expect.objectContaining({ stage: 'proposal', disposition: 'deny' })]);
    expect(executed).toEqual([]);
    await moduleRef.close();
  });

  it('control: arguments the async refinement accepts execute', async () => {
    const { moduleRef, executed, propose } = await boot(positive);

    const accepted = await propose({ id: 1 });

    expect(accepted).toMatchObject({ executed: true, output: 'done' });
    expect(executed).toEqual([{ id: 1 }]);
    await moduleRef.close();
  });
});
