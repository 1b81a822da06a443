import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  InMemoryTrajectoryStore,
  MissingTrajectoryError,
  type TrajectoryScope as Scope,
  TrajectoryScope,
  VerdictConfigurationError,
  VerdictModule,
  type VerdictModuleOptions,
  VerdictService,
  defineCapability,
  forbidStates,
  fromContext,
} from '@verdict/nestjs';

/** Two uploads of the same share are allowed; a third copy is the forbidden state. */
const copies = {
  initial: { copies: 0 },
  transitions: [{ when: { effect: 'copy', resource: 'share:*' }, add: { copies: 1 } }],
  forbidden: [{ id: 'too_many_copies', all: [{ field: 'copies', greater_than: 2 }] }],
};

interface Share {
  readonly id: string;
  readonly tenant: string | null;
}

const copyCapability = (name: string, scope: Scope | undefined): CapabilityDefinition =>
  defineCapability(
    {
      name,
      description: 'Copy the tenant share',
      action: 'copy',
      subject: 'Share',
      arguments: z.object({}),
      resolveTarget: fromContext((context): Share => ({ id: 'team-folder', tenant: context.tenant })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'share',
        identity: (share: Share) => ({ id: share.id, tenant: share.tenant }),
      }),
      forbidStates: forbidStates(
        copies,
        (_envelope, share: Share) => ({ effect: 'copy', resource: `share:${share.id}` }),
        { scope: scope! },
      ),
    },
    () => 'copied',
  );

async function boot(capabilities: CapabilityDefinition[], extra: Pick<VerdictModuleOptions, 'actorKey'> = {}) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'copy', subject: 'Share' }]) },
        trajectories: new InMemoryTrajectoryStore(),
        capabilities,
        ...extra,
      }),
    ],
  }).compile();
  await moduleRef.init();
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  /** Runs `capability` as `actor` in `tenant` (and `conversation`): 'copied', or the internal reason. */
  const copy = async (
    who: { actor: string | null; tenant?: string | null; conversation?: unknown },
    capability = 'shares.copy',
  ) => {
    const context: ActionContext = {
      actor: { id: who.actor },
      tenant: who.tenant === undefined ? 'acme' : who.tenant,
      ...(who.conversation === undefined ? {} : { metadata: { conversationId: who.conversation } }),
    };
    const result = await contexts.run(context, () => verdict.execute({ capability, arguments: {} }));
    return result.executed ? result.output : result.decision.reason;
  };
  return { copy, close: () => moduleRef.close() };
}

const FORBIDDEN = 'forbidden state: too_many_copies';

describe('forbidStates trajectory scopes', () => {
  it('conversation: each chat folds on its own, so a split across chats is not seen (why effects that persist need another scope)', async () => {
    const { copy, close } = await boot([copyCapability('shares.copy', TrajectoryScope.conversation())]);
    const outcomes = [];
    for (const conversation of ['a', 'a', 'b', 'b']) outcomes.push(await copy({ actor: 'ada', conversation }));
    outcomes.push(await copy({ actor: 'ada', conversation: 'a' }));
    expect(outcomes).toEqual(['copied', 'copied', 'copied', 'copied', FORBIDDEN]);
    await close();
  });

  it('conversation: a call without a conversation id is a wiring fault, never a decision', async () => {
    const { copy, close } = await boot([copyCapability('shares.copy', TrajectoryScope.conversation())]);
    await expect(copy({ actor: 'ada' })).rejects.toBeInstanceOf(MissingTrajectoryError);
    await expect(copy({ actor: 'ada' })).rejects.toThrow(/per conversation.*metadata\.conversationId/);
    await close();
  });

  it('conversation: a numeric id is a conversation of its own (5 is not "5"); a malformed one is a wiring fault', async () => {
    const { copy, close } = await boot([copyCapability('shares.copy', TrajectoryScope.conversation())]);
    for (const conversation of [5, 5, '5', '5', 6]) expect(await copy({ actor: 'ada', conversation })).toBe('copied');
    expect(await copy({ actor: 'ada', conversation: 5 })).toBe(FORBIDDEN);
    for (const conversation of ['', Number.NaN, { id: 5 }, true])
      await expect(copy({ actor: 'ada', conversation })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await close();
  });

  it('actor: one actor is folded across all their conversations, and apart from every other actor', async () => {
    const { copy, close } = await boot([
      copyCapability(
        'shares.copy',
        TrajectoryScope.actor((actor: { id: string }) => actor.id),
      ),
    ]);
    expect(await copy({ actor: 'ada', conversation: 'a' })).toBe('copied');
    expect(await copy({ actor: 'ada', conversation: 'b' })).toBe('copied');
    expect(await copy({ actor: 'ada' })).toBe(FORBIDDEN);
    // Another actor, and the same actor id in another tenant, have trajectories of their own.
    expect(await copy({ actor: 'bob', conversation: 'a' })).toBe('copied');
    expect(await copy({ actor: 'ada', tenant: 'globex' })).toBe('copied');
    await close();
  });

  it("actor() without a key: the module's actorKey keys the trajectory, so a new actor object of the same id is the same actor", async () => {
    const { copy, close } = await boot([copyCapability('shares.copy', TrajectoryScope.actor())], {
      actorKey: (actor) => (actor as { id: string }).id,
    });
    expect(await copy({ actor: 'ada', conversation: 'a' })).toBe('copied');
    expect(await copy({ actor: 'ada', conversation: 'b' })).toBe('copied');
    expect(await copy({ actor: 'ada' })).toBe(FORBIDDEN);
    expect(await copy({ actor: 'bob', conversation: 'a' })).toBe('copied');
    await close();
  });

  it('actor() without a key does not boot without a module actorKey', async () => {
    await expect(boot([copyCapability('shares.copy', TrajectoryScope.actor())])).rejects.toThrow(
      /TrajectoryScope\.actor\(\) without an actorKey/,
    );
  });

  it('tenant: every actor of the tenant shares one state; other tenants are untouched', async () => {
    const { copy, close } = await boot([copyCapability('shares.copy', TrajectoryScope.tenant())]);
    expect(await copy({ actor: 'ada', conversation: 'a' })).toBe('copied');
    expect(await copy({ actor: 'bob', conversation: 'z' })).toBe('copied');
    expect(await copy({ actor: 'carol' })).toBe(FORBIDDEN);
    expect(await copy({ actor: 'carol', tenant: 'globex' })).toBe('copied');
    await close();
  });

  it('key: an application key from trusted data (the execution target) decides which calls share a state', async () => {
    const byShare = TrajectoryScope.key('share', (context, share: Share) => ({
      tenant: context.tenant,
      share: share.id,
    }));
    const { copy, close } = await boot([copyCapability('shares.copy', byShare)]);
    for (const who of [{ actor: 'ada' }, { actor: 'bob', conversation: 'x' }]) expect(await copy(who)).toBe('copied');
    expect(await copy({ actor: 'carol', conversation: 'y' })).toBe(FORBIDDEN);
    await close();
  });

  it('shares one state between the capabilities that declare the same model and scope', async () => {
    const scope = TrajectoryScope.tenant();
    const { copy, close } = await boot([copyCapability('shares.copy', scope), copyCapability('shares.mirror', scope)]);
    expect(await copy({ actor: 'ada' }, 'shares.copy')).toBe('copied');
    expect(await copy({ actor: 'ada' }, 'shares.mirror')).toBe('copied');
    expect(await copy({ actor: 'ada' }, 'shares.mirror')).toBe(FORBIDDEN);
    await close();
  });

  it('refuses to boot when a capability chooses no scope', async () => {
    const booting = boot([copyCapability('shares.copy', undefined)]);
    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(boot([copyCapability('shares.copy', undefined)])).rejects.toThrow(
      /without a trajectory scope.*outlive/,
    );
  });

  it('refuses to boot when capabilities share a model under different scopes', async () => {
    const booting = boot([
      copyCapability('shares.copy', TrajectoryScope.conversation()),
      copyCapability('shares.mirror', TrajectoryScope.tenant()),
    ]);
    await expect(booting).rejects.toThrow(/same model as "shares.copy", but per tenant instead of per conversation/);
  });

  it('refuses to boot when capabilities share a model under two scopes of one kind: two keys of one name, two actor keys', async () => {
    const twoKeys = [
      copyCapability(
        'shares.copy',
        TrajectoryScope.key('share', (context, share: Share) => ({ tenant: context.tenant, share: share.id })),
      ),
      copyCapability(
        'shares.mirror',
        TrajectoryScope.key('share', (context) => ({
          tenant: context.tenant,
          actor: (context.actor as { id: string }).id,
        })),
      ),
    ];
    await expect(boot(twoKeys)).rejects.toThrow(/same model as "shares.copy", but another key:share scope object/);
    const twoActorKeys = [
      copyCapability(
        'shares.copy',
        TrajectoryScope.actor((actor: { id: string }) => actor.id),
      ),
      copyCapability(
        'shares.mirror',
        TrajectoryScope.actor((actor: { id: string }) => actor.id.toUpperCase()),
      ),
    ];
    await expect(boot(twoActorKeys)).rejects.toThrow(VerdictConfigurationError);
  });

  it('refuses a scope or a policy that the factories did not build', async () => {
    const lookAlike = {
      kind: 'tenant',
      id: 'tenant',
      keyOf: (context: ActionContext) => ({ tenant: context.tenant }),
    } as unknown as Scope;
    await expect(boot([copyCapability('shares.copy', lookAlike)])).rejects.toThrow(/without a trajectory scope/);
    const handMade = { ...copyCapability('shares.copy', TrajectoryScope.tenant()) };
    const forged = { ...handMade, forbidStates: { ...handMade.forbidStates!, modelFingerprint: 'f'.repeat(64) } };
    await expect(boot([forged])).rejects.toThrow(/forbidStates\(stateModel, effectOf, \{ scope \}\) did not build/);
  });

  it('gives an actor or tenant that names nobody no trajectory: a wiring fault, never a state shared by everyone without one', async () => {
    const byActor = await boot([
      copyCapability(
        'shares.copy',
        TrajectoryScope.actor((actor: { id: string | null }) => actor.id),
      ),
    ]);
    await expect(byActor.copy({ actor: null })).rejects.toBeInstanceOf(MissingTrajectoryError);
    // The paired control: an actor with an id in a context without a tenant still has their own trajectory.
    expect(await byActor.copy({ actor: 'ada', tenant: null })).toBe('copied');
    await byActor.close();
    const byTenant = await boot([copyCapability('shares.copy', TrajectoryScope.tenant())]);
    await expect(byTenant.copy({ actor: 'ada', tenant: null })).rejects.toThrow(
      /per tenant, but this call has no tenant key/,
    );
    expect(await byTenant.copy({ actor: 'ada' })).toBe('copied');
    await byTenant.close();
  });

  it('key: a blank key names nobody, so it is a wiring fault, never one state shared by everyone without a key', async () => {
    const byOwner = TrajectoryScope.key('owner', (context) => (context.actor as { id: string }).id);
    const { copy, close } = await boot([copyCapability('shares.copy', byOwner)]);
    const outcomes: unknown[] = [];
    for (const owner of ['', ' ', '', '\t'])
      outcomes.push(await copy({ actor: owner }).catch((error: unknown) => (error as Error).constructor.name));
    // The paired control: a non-blank key, padding included, is a trajectory of its own.
    const ada = [await copy({ actor: 'ada' }), await copy({ actor: 'ada' }), await copy({ actor: ' ada ' })];
    await close();

    expect(outcomes).toEqual(Array(4).fill('MissingTrajectoryError'));
    expect(ada).toEqual(['copied', 'copied', 'copied']);
  });
});
