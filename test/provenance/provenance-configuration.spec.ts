import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  type ProvenancePolicy,
  VerdictConfigurationError,
  VerdictModule,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';

const ARGUMENTS = z.object({
  recipient: z.string(),
  express: z.boolean(),
  currency: z.enum(['EUR', 'USD']),
  quantity: z.number().int().min(1).max(999),
  amount: z.number().positive(),
  lines: z.array(z.object({ sku: z.string().max(3), note: z.string() })),
});

function boot(provenance: ProvenancePolicy, { approvals = true } = {}) {
  const capability = defineCapability(
    {
      name: 'payments.send',
      description: 'Send a payment',
      action: 'pay',
      subject: 'Account',
      arguments: ARGUMENTS,
      resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Account', id: 'a' })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => 'a' }),
      mutates: true,
      provenance,
    },
    () => ({}),
  );
  return Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => ({ can: () => true }) as never },
        capabilities: [capability],
        ...(approvals ? { approvals: new InMemoryApprovalReceiptStore() } : {}),
      }),
    ],
  })
    .compile()
    .then((moduleRef) => moduleRef.init());
}

describe('provenance policy at boot', () => {
  it.each([
    ['a boolean', { express: 'trusted_only' }],
    ['an enum of short codes', { currency: { derivedFrom: 'trusted' } }],
    ['a number limited below 1,000', { quantity: 'deny' }],
    ['strings of at most three characters', { 'lines.*.sku': 'require_confirmation' }],
  ] as const)('refuses a rule on %s, which never yields a candidate', async (_, rules) => {
    const booting = boot({ arguments: rules as ProvenancePolicy['arguments'] });
    await expect(booting).rejects.toThrow(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/never yields a value provenance can trace/);
  });

  it('refuses a declared destination that never yields a candidate', async () => {
    await expect(boot({ destinations: ['express'] })).rejects.toThrow(/never yields a value provenance can trace/);
  });

  it('utility: boots with rules on a string, an unbounded number, a subtree with free text, and allow anywhere', async () => {
    await expect(
      boot({
        destinations: ['recipient'],
        arguments: { amount: 'trusted_only', lines: { derivedFrom: 'trusted' }, express: 'allow' },
      }),
    ).resolves.toBeDefined();
  });

  it('refuses a malformed positive rule and a trustedValues that is not a function', async () => {
    await expect(
      boot({ arguments: { recipient: { derivedFrom: 'trusted', otherwise: 'allow' } as never } }),
    ).rejects.toThrow(/derivedFrom/);
    await expect(boot({ trustedValues: ['x'] as never, arguments: { recipient: 'deny' } })).rejects.toThrow(
      /trustedValues/,
    );
  });

  it('needs an approval store where a destination takes the positive rule (confirmation), not where it denies', async () => {
    await expect(boot({ destinations: ['recipient'] }, { approvals: false })).rejects.toThrow(/approval receipt store/);
    await expect(
      boot({ destinations: ['recipient'], arguments: { recipient: { derivedFrom: 'trusted' } } }, { approvals: false }),
    ).resolves.toBeDefined();
  });
});

describe('ProvenancePolicy types', () => {
  it('types trustedValues from the capability’s arguments', () => {
    const capability = defineCapability(
      {
        name: 'payments.typed',
        description: 'Send a payment',
        action: 'pay',
        subject: 'Account',
        arguments: z.object({ recipient: z.string(), amount: z.number() }),
        resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Account', id: 'a' })),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => 'a' }),
        provenance: {
          destinations: ['recipient'],
          trustedValues: ({ arguments: args }) => {
            // @ts-expect-error the schema has no `payee`
            void args.payee;
            return [args.recipient, args.amount];
          },
        },
      },
      () => ({}),
    );
    expect(capability.provenance?.destinations).toEqual(['recipient']);
  });
});
