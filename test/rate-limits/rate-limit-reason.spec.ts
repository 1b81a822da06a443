import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  InMemoryRateLimitStore,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fixedWindow,
  fromContext,
} from '@verdict/nestjs';

/**
 * A rate limit's `reason` is the internal reason its throttle records carry (a NOT NULL column on TypeORM): a
 * JavaScript caller who leaves it out must be stopped at boot, not after a unit is spent.
 */

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };

function pingWithReason(reason: unknown) {
  return defineCapability(
    {
      name: 'notes.ping',
      description: 'Ping',
      action: 'read',
      subject: 'all',
      arguments: z.object({}),
      resolveTarget: fromContext((context) => ({ tenant: context.tenant })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'tenant',
        identity: (target: { tenant: string | null }) => target.tenant,
      }),
      rateLimit: fixedWindow({ name: 'pings', limit: 1, windowSeconds: 3600, key: () => ({}), reason } as never),
    },
    () => 'pinged',
  );
}

async function boot(reason: unknown) {
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) },
        evidence,
        rateLimits: new InMemoryRateLimitStore(),
        capabilities: [pingWithReason(reason)],
      }),
    ],
  }).compile();
  await moduleRef.init();
  const ping = () =>
    moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'notes.ping', arguments: {} }));
  return { moduleRef, evidence, ping };
}

describe('fixedWindow reason', () => {
  it.each([
    ['missing', undefined],
    ['blank', '   '],
    ['not a string', 42],
  ])('attack: a rate limit whose reason is %s fails at boot', async (_kind, reason) => {
    const booting = boot(reason);

    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/rateLimit without a reason/);
  });

  it('control: a rate limit with a reason boots, and its throttle record carries the reason', async () => {
    const { moduleRef, evidence, ping } = await boot('one ping an hour');

    const first = await ping();
    const second = await ping();

    expect(first).toMatchObject({ executed: true });
    expect(second).toMatchObject({ executed: false, decision: { disposition: 'throttle', stage: 'rate_limit' } });
    expect(evidence.decisions().at(-1)).toMatchObject({
      stage: 'rate_limit',
      disposition: 'throttle',
      reason: 'one ping an hour',
    });
    await moduleRef.close();
  });
});
