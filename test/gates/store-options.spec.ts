import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  type CapabilityDefinition,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryTrajectoryStore,
  TrajectoryScope,
  VerdictConfigurationError,
  type VerdictModuleOptions,
  VerdictService,
  atMostOnce,
  fixedWindow,
  forbidStates,
} from '@verdict/nestjs';
import { type Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

type StoreOption = 'rateLimits' | 'executionClaims' | 'trajectories';

/** One capability of the fixture's per store option, each using the durable gate that option's store serves. */
function gated(fixture: ReturnType<typeof documentsFixture>): Record<StoreOption, CapabilityDefinition> {
  const once = { effect: 'share', resource: 'document:*' };
  return {
    rateLimits: fixture.documentCapability(
      {
        name: 'documents.ping',
        description: 'Ping',
        rateLimit: fixedWindow({ name: 'pings', limit: 5, windowSeconds: 60, key: () => ({}), reason: 'pinged out' }),
      },
      () => 'pinged',
    ),
    executionClaims: fixture.documentCapability(
      {
        name: 'documents.publish',
        description: 'Publish',
        atMostOnce: atMostOnce<{ id: number }, Document>({ name: 'publish', key: (_e, doc) => ({ doc: doc.id }) }),
      },
      () => 'published',
    ),
    trajectories: fixture.documentCapability(
      {
        name: 'documents.share',
        description: 'Share',
        forbidStates: forbidStates(
          {
            initial: { shares: 0 },
            transitions: [{ when: once, add: { shares: 1 } }],
            forbidden: [{ id: 'shared_twice', all: [{ field: 'shares', greater_than: 1 }] }],
          },
          (_envelope, doc: Document) => ({ effect: 'share', resource: `document:${doc.id}` }),
          { scope: TrajectoryScope.tenant() },
        ),
      },
      () => 'shared',
    ),
  };
}

const STORES: Record<StoreOption, () => unknown> = {
  rateLimits: () => new InMemoryRateLimitStore(),
  executionClaims: () => new InMemoryExecutionClaimStore(),
  trajectories: () => new InMemoryTrajectoryStore(),
};

/** Boots the fixture with the capability that needs `option`, given `store` for it; runs it once as alice. */
async function bootAndRun(option: StoreOption, store: unknown): Promise<unknown> {
  const fixture = documentsFixture();
  const { moduleRef } = await fixture.boot({
    capabilities: [gated(fixture)[option]],
    [option]: store,
  } as Pick<VerdictModuleOptions, 'capabilities' | StoreOption>);
  try {
    const verdict = moduleRef.get(VerdictService);
    const capability = gated(fixture)[option].name;
    const result = await moduleRef
      .get(ActionContextStore)
      .run(alice, () => verdict.execute({ capability, arguments: { id: 1 } }));
    return result.executed ? result.output : result.decision.reason;
  } finally {
    await moduleRef.close();
  }
}

describe('a durable gate store option', () => {
  const cases = (['rateLimits', 'executionClaims', 'trajectories'] as const).flatMap((option) =>
    [null, {}].map((store) => [option, store] as const),
  );

  it.each(cases)('attack: `%s` that is %j fails the boot, naming the option, not every call', async (option, store) => {
    const failure = await bootAndRun(option, store).then(
      (output) => ({ booted: output }),
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(VerdictConfigurationError);
    expect((failure as Error).message).toMatch(
      new RegExp(`\`${option}\` is not an? \\w+Store \\(no [a-z, ]+ method`, 'i'),
    );
  });

  it.each(Object.keys(STORES) as StoreOption[])(
    'boots with a real `%s` store and runs the gated call (control)',
    async (option) => {
      expect(await bootAndRun(option, STORES[option]())).toMatch(/^(pinged|published|shared)$/);
    },
  );
});
