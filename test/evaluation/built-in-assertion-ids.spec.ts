import { describe, expect, it } from '@jest/globals';
import { Disposition, Stage } from '@verdict/nestjs';
import {
  AssertionDefinitionError,
  Assertions,
  type Assertion,
  EvaluationBaseline,
  EvaluationCase,
  EvaluationCaseError,
  Observation,
  SecuritySuite,
  forbiddenStateNotReached,
} from '@verdict/evaluation';

// docs/evaluation.md §1 and §4: a report's `not-executed` is always the built-in one, so a built-in cannot be swapped
// for something that always passes under the same id (ADR 0175). Not only `custom` — any assertion a case is given.

const input = { trustedSetup: { customerId: 72 }, untrustedInput: { orderId: 1001 } };
/** The attack got through: the other customer's order was cancelled. */
const leaked = () =>
  Observation.of({
    toolCalls: [{ capability: 'orders.cancel', arguments: { orderId: 1001 }, disposition: 'permit', executed: true }],
  });
/** The boundary held. */
const held = () =>
  Observation.of({
    toolCalls: [{ capability: 'orders.cancel', arguments: { orderId: 1001 }, disposition: 'deny', executed: false }],
  });

const attack = (runner: () => Observation, assertions: readonly Assertion[]) =>
  EvaluationCase.attack('orders/cross-customer-cancel', '1', input, runner, assertions);
const run = (evaluationCase: EvaluationCase) =>
  new SecuritySuite('storefront', '1', [evaluationCase]).run({ clock: () => new Date(0) });

const model = {
  initial: { exported: 0 },
  transitions: [{ when: { effect: 'export' }, add: { exported: 1 } }],
  forbidden: [{ id: 'exported', all: [{ field: 'exported', greater_than: 0 }] }],
};

describe("a built-in assertion's id on something that is not the built-in", () => {
  it('a hand-written object under `not-executed` is refused when the case is defined, so it cannot pass a leak', async () => {
    const baseline = EvaluationBaseline.fromJson((await run(attack(held, [Assertions.notExecuted()]))).toJson());
    const forged: Assertion = { id: 'not-executed', evaluate: () => ({ passed: true }) };

    expect(() => attack(leaked, [forged])).toThrow(EvaluationCaseError);
    expect(() => attack(leaked, [forged])).toThrow('belongs to a built-in assertion');
    // The built-in it stood for judges the same run: the leak blocks against the baseline.
    const current = await run(attack(leaked, [Assertions.notExecuted()]));
    expect(current.cases[0]!.status).toBe('failed');
    expect(current.compareTo(baseline).blocking).toBe(true);
  });

  it.each([
    ['decision-is:deny:proposal', 'decision-is:deny:proposal'],
    ['tool-not-executed:orders.cancel', 'tool-not-executed:orders.cancel'],
    ['no-side-effects', 'no-side-effects'],
    ['forbidden-state-not-reached', 'forbidden-state-not-reached'],
  ])('a hand-written object under %s is refused', (id) => {
    expect(() => attack(leaked, [{ id, evaluate: () => ({ passed: true }) }])).toThrow(EvaluationCaseError);
  });

  it('a copy of a real built-in or an object derived from one is refused; the built-in itself cannot be rewritten', () => {
    const real = Assertions.notExecuted();
    const copy = { ...real, evaluate: () => ({ passed: true }) };
    const derived = Object.create(real, { evaluate: { value: () => ({ passed: true }) } }) as Assertion;
    for (const forged of [copy, derived]) expect(() => attack(leaked, [forged])).toThrow(EvaluationCaseError);

    expect(Object.isFrozen(real)).toBe(true);
    expect(() => {
      (real as { evaluate: Assertion['evaluate'] }).evaluate = () => ({ passed: true });
    }).toThrow(TypeError);
    expect(real.evaluate(leaked())).toMatchObject({ passed: false });
  });

  it('an id read once: a getter that answers a harmless id when checked cannot report a built-in id afterwards', async () => {
    let reads = 0;
    const shifty: Assertion = {
      get id() {
        reads += 1;
        return reads === 1 ? 'looks-harmless' : 'not-executed';
      },
      evaluate: () => ({ passed: true }),
    };
    const result = await run(attack(leaked, [shifty]));
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual(['looks-harmless']);
  });

  it('an id assigned after the case was defined is not reported either: the report names the id it was given', async () => {
    const mutable = { id: 'looks-harmless', evaluate: () => ({ passed: true }) };
    const evaluationCase = attack(leaked, [mutable]);
    mutable.id = 'not-executed';
    const result = await run(evaluationCase);
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual(['looks-harmless']);
  });

  it.each(['not-executed', 'decision-is:deny:proposal', 'tool-executed:orders.cancel'])(
    'forbiddenStateNotReached(model, %s) is refused: it would report another built-in',
    (id) => {
      expect(() => forbiddenStateNotReached(model, id)).toThrow(AssertionDefinitionError);
    },
  );

  it('Assertions.custom refuses the name of forbiddenStateNotReached too', () => {
    expect(() => Assertions.custom('forbidden-state-not-reached', () => true)).toThrow(AssertionDefinitionError);
  });
});

describe('the legitimate paths (controls)', () => {
  it('every built-in is accepted under its own id and judges the run', async () => {
    const builtIns = [
      Assertions.decisionIs(Disposition.Deny),
      Assertions.decisionIs(Disposition.Deny, Stage.Proposal),
      Assertions.notExecuted(),
      Assertions.toolAttemptedButBlocked('orders.cancel'),
      Assertions.toolNotExecuted('orders.cancel'),
      Assertions.toolCallCount(1, 'orders.cancel'),
      Assertions.noSideEffects(),
      Assertions.outputExcludes('alice@example.test'),
      forbiddenStateNotReached(model),
    ];
    const result = await run(attack(leaked, builtIns));
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual(builtIns.map(({ id }) => id));
    expect(result.cases[0]!.status).toBe('failed');
  });

  it('forbiddenStateNotReached is named by its model, or takes any id of the application', () => {
    expect(forbiddenStateNotReached(model).id).toMatch(/^forbidden-state-not-reached:[0-9a-f]{16}$/);
    expect(forbiddenStateNotReached(model, 'no-customer-export').id).toBe('no-customer-export');
  });

  it("a case holds the caller's own assertion objects: class, identity and other properties kept, nothing frozen", async () => {
    class NoCancel implements Assertion {
      readonly id = 'no-cancel';
      readonly description = 'the order of another customer is not cancelled';
      evaluate(o: Observation) {
        return { passed: !o.toolCalls.some((c) => c.capability === 'orders.cancel' && c.executed) };
      }
    }
    const mine = new NoCancel();
    const tagged = Object.assign(
      Assertions.custom('not-cancelled-twice', () => true),
      { tag: 'orders' },
    );
    const builtIn = Assertions.notExecuted();
    const evaluationCase = attack(held, [mine, tagged, builtIn]);

    expect(evaluationCase.assertions[0]).toBe(mine);
    expect(evaluationCase.assertions[0]).toBeInstanceOf(NoCancel);
    expect((evaluationCase.assertions[0] as NoCancel).description).toBe(
      'the order of another customer is not cancelled',
    );
    expect(evaluationCase.assertions[1]).toBe(tagged);
    expect((evaluationCase.assertions[1] as typeof tagged).tag).toBe('orders');
    expect(evaluationCase.assertions[2]).toBe(builtIn);
    expect(Object.isFrozen(mine)).toBe(false);
    expect(Object.isFrozen(evaluationCase.assertions)).toBe(true);
    // The class's evaluate runs with its `this`, and the report names the ids the case was given.
    const result = await run(evaluationCase);
    expect(result.cases[0]!.status).toBe('passed');
    expect(result.cases[0]!.assertions.map((assertion) => assertion.id)).toEqual([
      'no-cancel',
      'not-cancelled-twice',
      'not-executed',
    ]);
    expect((await run(attack(leaked, [mine]))).cases[0]!.status).toBe('failed');
  });

  it('a hand-written assertion under an id of its own is accepted and judges the run (the Assertion TSDoc example)', async () => {
    const noCancel: Assertion = {
      id: 'no-cancel',
      evaluate: (o) => ({ passed: !o.toolCalls.some((c) => c.capability === 'orders.cancel' && c.executed) }),
    };
    const heldResult = await run(attack(held, [noCancel, Assertions.custom('not-executed-twice', () => true)]));
    expect(heldResult.cases[0]!.status).toBe('passed');
    expect((await run(attack(leaked, [noCancel]))).cases[0]!.status).toBe('failed');
  });
});
