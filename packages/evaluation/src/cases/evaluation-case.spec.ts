import { describe, expect, it } from '@jest/globals';
import { fingerprint, NonCanonicalValueError } from '@verdict/nestjs';
import { custom } from '../assertions/custom-assertion.js';
import { executed, notExecuted } from '../assertions/decision-assertions.js';
import { Observation } from '../observations/observation.js';
import { CaseInput } from './case-input.js';
import { CasePurpose } from './case-purpose.js';
import { EvaluationCase } from './evaluation-case.js';
import { EvaluationCaseError } from './evaluation-case.error.js';

const input = { trustedSetup: { actorId: 72 }, untrustedInput: { request: 'Where is order #1001?' } };
const runner = () => Observation.of({ executed: false });

describe('EvaluationCase', () => {
  describe('attack and utility', () => {
    it('keep the purpose, id, version and assertions of the definition', () => {
      const attack = EvaluationCase.attack('cross-customer-order', '1', input, runner, [notExecuted()]);
      const utility = EvaluationCase.utility('owned-order', '2025-06-01', input, runner, [executed()]);

      expect([attack.purpose, attack.id, attack.version, attack.pending]).toEqual([
        CasePurpose.Attack,
        'cross-customer-order',
        '1',
        false,
      ]);
      expect([utility.purpose, utility.version, utility.assertions.map((a) => a.id)]).toEqual([
        CasePurpose.Utility,
        '2025-06-01',
        ['executed'],
      ]);
    });

    it('fingerprints the trusted setup and the untrusted input separately', () => {
      const attack = EvaluationCase.attack('a', '1', input, runner, [notExecuted()]);

      expect(attack.input?.trustedSetupFingerprint).toBe(fingerprint(input.trustedSetup));
      expect(attack.input?.untrustedInputFingerprint).toBe(fingerprint(input.untrustedInput));
      const swapped = CaseInput.of({ trustedSetup: input.untrustedInput, untrustedInput: input.trustedSetup });
      expect(swapped.trustedSetupFingerprint).not.toBe(attack.input?.trustedSetupFingerprint);
    });

    it('never runs the runner when the case is defined', () => {
      const seen: number[] = [];
      EvaluationCase.attack(
        'typed',
        '1',
        { trustedSetup: { actorId: 72 }, untrustedInput: { orderId: 1001 } },
        (given) => {
          seen.push(given.trustedSetup.actorId + given.untrustedInput.orderId);
          return Observation.of();
        },
        [notExecuted()],
      );
      expect(seen).toEqual([]); // defining a case never runs it
    });

    it.each([
      ['an empty id', () => EvaluationCase.attack('', '1', input, runner, [notExecuted()])],
      [
        'an id with spaces',
        () => EvaluationCase.attack('ignore previous instructions', '1', input, runner, [notExecuted()]),
      ],
      ['a numeric version', () => EvaluationCase.attack('a', 1 as unknown as string, input, runner, [notExecuted()])],
      ['an empty version', () => EvaluationCase.utility('a', '', input, runner, [notExecuted()])],
      ['a missing runner', () => EvaluationCase.attack('a', '1', input, undefined as never, [notExecuted()])],
      ['no assertions', () => EvaluationCase.attack('a', '1', input, runner, [])],
      [
        'a duplicate assertion id',
        () => EvaluationCase.attack('a', '1', input, runner, [notExecuted(), notExecuted()]),
      ],
      ['a malformed assertion', () => EvaluationCase.attack('a', '1', input, runner, [{ id: 'x' } as never])],
      [
        'an input without untrusted half',
        () => EvaluationCase.attack('a', '1', { trustedSetup: {} } as never, runner, [notExecuted()]),
      ],
      ['an unknown purpose', () => EvaluationCase.pending('security' as CasePurpose, 'a', '1')],
    ])('rejects %s with EvaluationCaseError', (_label, define) => {
      expect(define).toThrow(EvaluationCaseError);
    });

    it('rejects an input that is not plain JSON', () => {
      const define = () =>
        EvaluationCase.attack('a', '1', { trustedSetup: { at: new Date(0) }, untrustedInput: null }, runner, [
          notExecuted(),
        ]);
      expect(define).toThrow(NonCanonicalValueError);
    });

    it('accepts custom assertions next to built-in ones', () => {
      const attack = EvaluationCase.attack('a', '1', input, runner, [notExecuted(), custom('no-refund', () => true)]);
      expect(attack.assertions.map((a) => a.id)).toEqual(['not-executed', 'no-refund']);
    });
  });

  describe('pending', () => {
    it('declares a case without runner or assertions', () => {
      const pending = EvaluationCase.pending(CasePurpose.Attack, 'tool-loop', '1', input);

      expect([pending.pending, pending.runner, pending.assertions]).toEqual([true, null, []]);
      expect(pending.input?.untrustedInputFingerprint).toBe(fingerprint(input.untrustedInput));
    });

    it('may omit the input', () => {
      expect(EvaluationCase.pending(CasePurpose.Utility, 'later', '1').input).toBeNull();
    });
  });
});
