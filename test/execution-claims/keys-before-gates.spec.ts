import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryTrajectoryStore,
  type JsonValue,
  NonCanonicalValueError,
  TrajectoryScope,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  forbidStates,
  fromContext,
} from '@verdict/nestjs';

/**
 * A gate's key is the application's code: one that throws, or answers a value that is not plain JSON, is an application
 * fault. It is computed before any durable gate spends anything (as a spend budget's amount is, ADR 0093): a faulty
 * call stores no trajectory effect and uses no rate-limit unit, and fails with the application's own exception or
 * `NonCanonicalValueError`, never a decision.
 */

type Fault = 'none' | 'claim-key-throws' | 'claim-key-malformed' | 'rate-key-throws';
type Send = { note: string; fault: Fault };

/** The application's own exception, thrown by a key. */
class KeyFault extends Error {}

/** Two sends per actor: a third one is the forbidden state. */
const sends = {
  initial: { sends: 0 },
  transitions: [{ when: { effect: 'send' }, add: { sends: 1 } }],
  forbidden: [{ id: 'third_send', all: [{ field: 'sends', greater_than: 2 }] }],
};

/** `key`, unless the call asks for the fault `of` this key: then the application's own exception. */
const keyOf = (fault: Fault, of: Fault, key: JsonValue): JsonValue => {
  if (fault === of) throw new KeyFault(of);
  return key;
};

const send = defineCapability(
  {
    name: 'notes.send',
    description: 'Send a note to the tenant',
    action: 'send',
    subject: 'Note',
    arguments: z.object({
      note: z.string(),
      fault: z.enum(['none', 'claim-key-throws', 'claim-key-malformed', 'rate-key-throws']),
    }),
    resolveTarget: fromContext((context) => ({ tenant: context.tenant })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
      name: 'tenant',
      identity: (target: { tenant: string | null }) => target.tenant,
    }),
    forbidStates: forbidStates(sends, () => ({ effect: 'send' }), { scope: TrajectoryScope.actor() }),
    rateLimit: fixedWindow<Send, unknown>({
      name: 'sends-per-actor',
      limit: 1,
      windowSeconds: 3600,
      key: ({ arguments: args, context }) =>
        keyOf(args.fault, 'rate-key-throws', { actor: (context.actor as { id: string }).id }),
      reason: 'one send an hour',
    }),
    // The operation is the note, whoever sends it.
    atMostOnce: atMostOnce<Send, unknown>({
      name: 'send-note-once',
      key: ({ arguments: args }) =>
        args.fault === 'claim-key-malformed'
          ? ({ at: new Date(0) } as never)
          : keyOf(args.fault, 'claim-key-throws', { note: args.note }),
    }),
  },
  () => 'sent',
);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

async function boot() {
  const claims = new InMemoryExecutionClaimStore();
  // One instant for the whole test: the hourly rate-limit window cannot roll over between two sends.
  const now = new Date();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        clock: () => now,
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'send', subject: 'all' }]) },
        actorKey: (actor) => (actor as { id: string }).id,
        trajectories: new InMemoryTrajectoryStore(),
        rateLimits: new InMemoryRateLimitStore(),
        executionClaims: claims,
        capabilities: [send],
      }),
    ],
  }).compile();
  await moduleRef.init();
  booted.push(moduleRef);
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  /** `executed`, or `disposition@stage`. */
  const sendAs = async (actor: string, note: string, fault: Fault = 'none') => {
    const context: ActionContext = { actor: { id: actor }, tenant: 'acme', metadata: {} };
    const result = await contexts.run(context, () =>
      verdict.execute({ capability: 'notes.send', arguments: { note, fault } }),
    );
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  return { sendAs, claims };
}

describe('gate keys are computed before any durable gate spends', () => {
  it('attack: a claim key that throws fails with its exception, and uses no rate-limit unit', async () => {
    const { sendAs } = await boot();

    await expect(sendAs('alice', 'hello', 'claim-key-throws')).rejects.toBeInstanceOf(KeyFault);

    // One send an hour: the unit is still there for the legitimate call.
    expect(await sendAs('alice', 'hello')).toBe('executed');
  });

  it('attack: a claim key that is not plain JSON fails with NonCanonicalValueError, and uses no rate-limit unit', async () => {
    const { sendAs } = await boot();

    const fault = sendAs('alice', 'hello', 'claim-key-malformed');
    await expect(fault).rejects.toBeInstanceOf(NonCanonicalValueError);
    await expect(fault).rejects.toMatchObject({ path: '$.binding.at' });

    expect(await sendAs('alice', 'hello')).toBe('executed');
  });

  it('attack: a rate-limit key that throws fails with its exception, and stores no trajectory effect', async () => {
    const { sendAs } = await boot();

    for (const _ of [1, 2]) await expect(sendAs('alice', 'hello', 'rate-key-throws')).rejects.toBeInstanceOf(KeyFault);

    // Two sends per actor: neither faulty call was folded onto alice's trajectory.
    expect(await sendAs('alice', 'hello')).toBe('executed');
  });

  it('control: a good key claims the operation once, and a duplicate is refused at the claim', async () => {
    const { sendAs, claims } = await boot();

    expect(await sendAs('alice', 'hello')).toBe('executed');
    // Bob's own trajectory and rate-limit unit are untouched: his copy of the same note meets alice's claim.
    expect(await sendAs('bob', 'hello')).toBe('deny@execution_claim');
    expect(await sendAs('alice', 'another note')).toBe('throttle@rate_limit');
    expect(await claims.unresolved()).toEqual([]);
  });
});
