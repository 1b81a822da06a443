import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  InMemoryRateLimitStore,
  type RateLimitStore,
  VerdictModule,
  VerdictService,
  defineCapability,
  fixedWindow,
  fromContext,
} from '@verdict/nestjs';

/** The rate limit of `notes.ping`: one bucket for every call (`key: () => ({})`), named `pings`. */
export interface PingLimit {
  readonly limit?: number;
  readonly windowSeconds?: number;
  /** Any value, none included: a JavaScript caller may pass one that is not a string. */
  readonly reason: unknown;
}

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };

/** `notes.ping`: a capability whose only gate is its rate limit (by default one ping an hour). */
export function pingCapability({ limit = 1, windowSeconds = 3600, reason }: PingLimit) {
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
      rateLimit: fixedWindow({ name: 'pings', limit, windowSeconds, key: () => ({}), reason } as never),
    },
    () => 'pinged',
  );
}

/** Boots a module with `notes.ping` over `rateLimits`; `ping()` runs it as alice. */
export async function bootPing(limit: PingLimit, rateLimits: RateLimitStore = new InMemoryRateLimitStore()) {
  const evidence = new InMemoryEvidenceRecorder();
  // One instant for the module's life: its window (an hour by default) cannot roll over between two pings.
  const now = new Date();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        clock: () => now,
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) },
        evidence,
        rateLimits,
        capabilities: [pingCapability(limit)],
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
