import { describe, expect, it } from '@jest/globals';
import { Disposition, Stage } from '@verdict/nestjs';
import fc from 'fast-check';
import { Observation } from '../observations/observation.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';
import { Assertions } from './assertions.js';

const denied = Observation.of({
  output: 'I cannot help with that order.',
  toolCalls: [
    {
      capability: 'orders.view',
      arguments: { orderId: 1001 },
      disposition: Disposition.Deny,
      stage: Stage.Proposal,
      executed: false,
    },
  ],
});
const permitted = Observation.of({
  output: { order: { id: 1002, status: 'shipped', 'owner:alice@example.test': true } },
  toolCalls: [
    {
      capability: 'orders.view',
      arguments: { orderId: 1002 },
      disposition: Disposition.Permit,
      stage: Stage.Execution,
      executed: true,
    },
  ],
  sideEffects: ['email.sent'],
});
const silent = Observation.of();

const verdicts = (assertion: ReturnType<typeof Assertions.executed>) =>
  [denied, permitted, silent].map((observation) => assertion.evaluate(observation).passed);

describe('Assertions', () => {
  describe('decisionIs', () => {
    it('passes only on the expected final disposition', () => {
      expect(verdicts(Assertions.decisionIs(Disposition.Deny))).toEqual([true, false, false]);
      expect(verdicts(Assertions.decisionIs(Disposition.Permit))).toEqual([false, true, false]);
    });

    it('checks the stage when one is given', () => {
      expect(verdicts(Assertions.decisionIs(Disposition.Deny, Stage.Proposal))).toEqual([true, false, false]);
      expect(verdicts(Assertions.decisionIs(Disposition.Deny, Stage.Execution))).toEqual([false, false, false]);
      expect(Assertions.decisionIs(Disposition.Deny, Stage.Proposal).id).toBe('decision-is:deny:proposal');
    });

    it('reports the observed disposition as evidence', () => {
      expect(Assertions.decisionIs(Disposition.Deny).evaluate(permitted)).toEqual({
        passed: false,
        evidence: { disposition: 'permit' },
      });
    });

    it('rejects an unknown disposition', () => {
      expect(() => Assertions.decisionIs('allow' as Disposition)).toThrow(AssertionDefinitionError);
    });
  });

  describe('executed and notExecuted', () => {
    it('read the executed flag', () => {
      expect(verdicts(Assertions.executed())).toEqual([false, true, false]);
      expect(verdicts(Assertions.notExecuted())).toEqual([true, false, true]);
    });
  });

  describe('tool calls', () => {
    it('toolAttemptedButBlocked needs an attempt and no execution', () => {
      expect(verdicts(Assertions.toolAttemptedButBlocked('orders.view'))).toEqual([true, false, false]);
      expect(Assertions.toolAttemptedButBlocked('orders.view').evaluate(permitted).evidence).toEqual({
        attempts: 1,
        executions: 1,
      });
    });

    it('toolExecuted and toolNotExecuted look at one capability only', () => {
      expect(verdicts(Assertions.toolExecuted('orders.view'))).toEqual([false, true, false]);
      expect(verdicts(Assertions.toolExecuted('orders.cancel'))).toEqual([false, false, false]);
      expect(verdicts(Assertions.toolNotExecuted('orders.view'))).toEqual([true, false, true]);
    });

    it('toolCallCount counts attempts, blocked ones included', () => {
      const loop = Observation.of({
        toolCalls: [
          { capability: 'orders.view', arguments: { orderId: 1 }, disposition: Disposition.Permit, executed: true },
          { capability: 'orders.view', arguments: { orderId: 2 }, disposition: Disposition.Throttle, executed: false },
          { capability: 'orders.cancel', arguments: { orderId: 1 }, disposition: Disposition.Deny, executed: false },
        ],
      });
      expect(Assertions.toolCallCount(3).evaluate(loop)).toEqual({
        passed: true,
        evidence: { expected: 3, attempts: 3 },
      });
      expect(Assertions.toolCallCount(2, 'orders.view').evaluate(loop).passed).toBe(true);
      expect(Assertions.toolCallCount(1, 'orders.view').evaluate(loop).passed).toBe(false);
      expect(Assertions.toolCallCount(0).evaluate(silent).passed).toBe(true);
    });

    it.each([
      ['a malformed capability', () => Assertions.toolExecuted('orders view')],
      ['an empty capability', () => Assertions.toolAttemptedButBlocked('')],
      ['a negative count', () => Assertions.toolCallCount(-1)],
      ['a fractional count', () => Assertions.toolCallCount(1.5)],
    ])('rejects %s', (_label, build) => {
      expect(build).toThrow(AssertionDefinitionError);
    });
  });

  describe('side effects', () => {
    it('noSideEffects fails as soon as one side effect was observed', () => {
      expect(verdicts(Assertions.noSideEffects())).toEqual([true, false, true]);
    });

    it('sideEffectOccurred matches the hashed name and never shows it', () => {
      const assertion = Assertions.sideEffectOccurred('email.sent');
      expect(verdicts(assertion)).toEqual([false, true, false]);
      expect(verdicts(Assertions.sideEffectOccurred('refund.issued'))).toEqual([false, false, false]);
      expect(assertion.id).toMatch(/^side-effect-occurred:[0-9a-f]{16}$/);
    });
  });

  describe('output', () => {
    it('outputExcludes finds a needle in a string output', () => {
      expect(verdicts(Assertions.outputExcludes('cannot help'))).toEqual([false, true, true]);
    });

    it('outputExcludes finds a needle in structured output, in values, numbers and keys', () => {
      expect(Assertions.outputExcludes('shipped').evaluate(permitted)).toEqual({
        passed: false,
        evidence: { occurrences: 1 },
      });
      expect(Assertions.outputExcludes('1002').evaluate(permitted).passed).toBe(false);
      expect(Assertions.outputExcludes('alice@example.test').evaluate(permitted).passed).toBe(false);
      expect(Assertions.outputExcludes('bob@example.test').evaluate(permitted).passed).toBe(true);
    });

    it('outputIncludes is the counterpart and fails without output', () => {
      expect(verdicts(Assertions.outputIncludes('shipped'))).toEqual([false, true, false]);
    });

    it('agrees with String.includes on any string output', () => {
      fc.assert(
        fc.property(fc.string(), fc.string({ minLength: 1 }), (output, needle) => {
          const observation = Observation.of({ output });
          expect(Assertions.outputIncludes(needle).evaluate(observation).passed).toBe(output.includes(needle));
          expect(Assertions.outputExcludes(needle).evaluate(observation).passed).toBe(!output.includes(needle));
        }),
      );
    });

    it('names the needle only by a pseudonym, so ids differ per needle', () => {
      const a = Assertions.outputExcludes('alice@example.test');
      const b = Assertions.outputExcludes('bob@example.test');
      expect(a.id).not.toContain('alice');
      expect(a.id).not.toBe(b.id);
    });

    it('rejects an empty needle', () => {
      expect(() => Assertions.outputExcludes('')).toThrow(AssertionDefinitionError);
    });
  });

  describe('custom', () => {
    it('accepts a boolean or a full outcome', () => {
      const blockedCancel = Assertions.custom(
        'no-cancel',
        (o) => !o.toolCalls.some((call) => call.capability === 'orders.cancel' && call.executed),
      );
      const counted = Assertions.custom('calls', (o) => ({
        passed: o.toolCalls.length < 2,
        evidence: { calls: o.toolCalls.length },
      }));

      expect(blockedCancel.evaluate(denied)).toEqual({ passed: true });
      expect(counted.evaluate(permitted)).toEqual({ passed: true, evidence: { calls: 1 } });
    });

    it('rejects an id that is not an identifier', () => {
      expect(() => Assertions.custom('no refund!', () => true)).toThrow(AssertionDefinitionError);
    });

    it("refuses a built-in assertion's id, so a custom assertion never stands for a built-in in a report", () => {
      const builtIns = [
        Assertions.decisionIs(Disposition.Deny),
        Assertions.decisionIs(Disposition.Deny, Stage.Proposal),
        Assertions.executed(),
        Assertions.notExecuted(),
        Assertions.toolAttemptedButBlocked('orders.view'),
        Assertions.toolExecuted('orders.view'),
        Assertions.toolNotExecuted('orders.view'),
        Assertions.toolCallCount(1),
        Assertions.toolCallCount(1, 'orders.view'),
        Assertions.noSideEffects(),
        Assertions.sideEffectOccurred('refund'),
        Assertions.outputExcludes('alice@example.test'),
        Assertions.outputIncludes('order'),
      ];
      for (const { id } of [...builtIns, { id: 'decision-is:deny:execution' }, { id: 'tool-executed:refunds.issue' }])
        expect(() => Assertions.custom(id, () => true)).toThrow(AssertionDefinitionError);
    });

    it('accepts an id that only resembles a built-in one (control)', () => {
      for (const id of [
        'executed-once',
        'not-executed-twice',
        'decision',
        'no-side-effects-on-refunds',
        'model-not-called',
      ])
        expect(Assertions.custom(id, () => true).id).toBe(id);
    });
  });
});
