import { describe, expect, it } from '@jest/globals';
import { type Plan, VerdictConfigurationError, withPlan } from '@verdict/nestjs';
import { currentPlan, planFingerprint } from '../../packages/verdict/src/plans/plan.js';

const PLAN: Plan = {
  steps: [{ capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } }],
};

/** A plan that holds itself. */
function cyclic(): object {
  const plan: Record<string, unknown> = { steps: [{ capability: 'payments.send' }] };
  plan.self = plan;
  return plan;
}

/** What `withPlan(plan, …)` threw, and whether its function ran. */
function attempt(plan: unknown): { error: unknown; ran: boolean } {
  let ran = false;
  try {
    withPlan(plan as Plan, () => {
      ran = true;
    });
    return { error: undefined, ran };
  } catch (error) {
    return { error, ran };
  }
}

describe('withPlan with a missing or malformed plan', () => {
  it('attack: withPlan(undefined) is a VerdictConfigurationError, not a TypeError, and runs nothing', () => {
    const { error, ran } = attempt(undefined);

    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect((error as Error).message).toMatch(/^withPlan needs null or a plan .* got undefined\.$/);
    expect(ran).toBe(false);
  });

  for (const [name, plan] of [
    ['no steps', {}],
    ['steps that are not an array', { steps: 'payments.send' }],
    ['no step at all', { steps: [] }],
    ['a step without a capability', { steps: [{ arguments: { recipient: ['mcp:files'] } }] }],
    [
      'a source that is not kind:name',
      { steps: [{ capability: 'payments.send', arguments: { recipient: ['files'] } }] },
    ],
    [
      'an argument path that does not parse',
      { steps: [{ capability: 'payments.send', arguments: { '__proto__.x': ['mcp:files'] } }] },
    ],
    ['a number', 7],
    ['an extra bigint', { ...PLAN, revision: 1n }],
    ['a cycle', cyclic()],
    // A `toJSON` would have put in force what it answers, while the checks read the object.
    ['a toJSON', { steps: [{ capability: 'payments.send' }], toJSON: () => PLAN }],
    ['a step with a toJSON', { steps: [{ capability: 'payments.send', toJSON: () => PLAN.steps[0] }] }],
    // The schema's record drops a `__proto__` key: the fingerprint refuses it, named as the same wiring mistake.
    [
      'a __proto__ argument path',
      JSON.parse('{"steps":[{"capability":"payments.send","arguments":{"__proto__":["mcp:files"]}}]}') as object,
    ],
  ] as const)
    it(`attack: a plan with ${name} is a VerdictConfigurationError naming the failed check; nothing runs`, () => {
      const { error, ran } = attempt(plan);

      expect(error).toBeInstanceOf(VerdictConfigurationError);
      expect((error as Error).message).toMatch(/^withPlan needs null or a plan/);
      expect(ran).toBe(false);
    });

  it('attack: the error names the failed check by its path, never a value the plan holds', () => {
    const { error } = attempt({ steps: [{ arguments: { recipient: ['mcp:files'] } }] });
    expect((error as Error).message).toContain('steps.0.capability: invalid_type');
    expect((error as Error).message).not.toContain('mcp:files');
  });

  it('control: a well-formed plan is put in force, and null is plan mode without a plan', () => {
    expect(withPlan(PLAN, () => currentPlan()?.plan)).toEqual(PLAN);
    expect(withPlan(null, () => currentPlan())).toBeNull();
    expect(currentPlan()).toBeUndefined();
  });
});

describe('withPlan enforces the plan as it was given', () => {
  it('attack: changing the plan object inside withPlan changes nothing in force', () => {
    /** The caller's own object, which it goes on changing. */
    const plan = JSON.parse(JSON.stringify(PLAN)) as {
      steps: Array<{ capability: string; arguments?: Record<string, string[]> }>;
    };
    withPlan(plan as Plan, () => {
      const before = currentPlan()!;
      plan.steps[0]!.arguments = { recipient: ['web:attacker'] };
      plan.steps.push({ capability: 'payments.refund' });

      expect(currentPlan()!.plan).toEqual(PLAN);
      expect(currentPlan()!.fingerprint).toBe(before.fingerprint);
      expect(Object.isFrozen(currentPlan()!.plan.steps[0]!.arguments)).toBe(true);
    });
  });

  it('a getter answering another plan later: the plan in force is the plan fingerprinted and checked', () => {
    /** Answers a plan without sources the first time it is read, the plan naming the bill's source afterwards. */
    let reads = 0;
    const plan = {
      get steps() {
        reads += 1;
        return reads === 1 ? [{ capability: 'payments.send' }] : PLAN.steps;
      },
    };
    withPlan(plan as Plan, () => {
      const inForce = currentPlan()!;
      expect(inForce.fingerprint).toBe(planFingerprint(inForce.plan));
      expect(Object.getOwnPropertyDescriptor(inForce.plan, 'steps')).toMatchObject({ writable: false });
    });
  });

  it('control: an optional field written undefined is no field, as JSON reads it', () => {
    const plan = { steps: [{ capability: 'payments.send', arguments: undefined }], note: undefined };
    withPlan(plan as Plan, () => {
      expect(currentPlan()!.plan).toEqual({ steps: [{ capability: 'payments.send' }] });
      expect(Object.keys(currentPlan()!.plan.steps[0]!)).toEqual(['capability']);
      expect(currentPlan()!.fingerprint).toBe(planFingerprint({ steps: [{ capability: 'payments.send' }] }));
    });
  });

  it('control: the plan in force is the plan given, with its fingerprint', () => {
    withPlan(PLAN, () => {
      expect(currentPlan()).toEqual({ plan: PLAN, fingerprint: expect.any(String) });
    });
  });
});
