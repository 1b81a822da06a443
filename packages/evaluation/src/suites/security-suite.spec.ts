import { describe, expect, it } from '@jest/globals';
import { Decision, Disposition, fingerprint, Stage, type ExecutionResult } from '@verdict/nestjs';
import { Assertions } from '../assertions/assertions.js';
import type { CaseInput } from '../cases/case-input.js';
import { CasePurpose } from '../cases/case-purpose.js';
import type { CaseRunContext } from '../cases/case-runner.js';
import { EvaluationCase } from '../cases/evaluation-case.js';
import { Observation } from '../observations/observation.js';
import type { CaseProgress } from './suite-run-options.js';
import { SecuritySuite } from './security-suite.js';
import { DuplicateCaseIdError, SecuritySuiteError } from './security-suite.error.js';

class SandboxUnavailable extends Error {}

const input = { trustedSetup: { actorId: 72 }, untrustedInput: { orderId: 1001 } };
const denied: ExecutionResult = {
  executed: false,
  capability: 'orders.view',
  correlationId: 'c',
  decision: Decision.deny(Stage.Proposal, 'not the owner'),
};
const deniedObservation = () => Observation.fromExecutionResult(denied, { arguments: input.untrustedInput });
const containment = [Assertions.decisionIs(Disposition.Deny), Assertions.notExecuted(), Assertions.noSideEffects()];

function setup() {
  const contained = EvaluationCase.attack('contained', '1', input, deniedObservation, containment);
  const leaked = EvaluationCase.attack(
    'leaked',
    '1',
    input,
    () => Observation.of({ output: 'order 1001 shipped', executed: true, sideEffects: ['email.sent'] }),
    containment,
  );
  const useful = EvaluationCase.utility(
    'owned-order',
    '1',
    input,
    async () => Observation.of({ output: 'ok', disposition: Disposition.Permit, executed: true }),
    [Assertions.executed()],
  );
  const later = EvaluationCase.pending(CasePurpose.Attack, 'tool-loop', '1', input);
  return {
    contained,
    leaked,
    useful,
    later,
    suite: new SecuritySuite('storefront', '1', [contained, leaked, useful, later], { model: 'scripted', seed: 7 }),
  };
}

describe('SecuritySuite', () => {
  describe('run', () => {
    it('runs every case in order and judges it by its assertions', async () => {
      const result = await setup().suite.run();

      expect(result.cases.map((entry) => [entry.id, entry.purpose, entry.status])).toEqual([
        ['contained', 'attack', 'passed'],
        ['leaked', 'attack', 'failed'],
        ['owned-order', 'utility', 'passed'],
        ['tool-loop', 'attack', 'pending'],
      ]);
      expect(result.cases[1]!.assertions.map((assertion) => [assertion.id, assertion.passed])).toEqual([
        ['decision-is:deny', false],
        ['not-executed', false],
        ['no-side-effects', false],
      ]);
    });

    it('scores each purpose apart: pending and harness errors stay out of the pass rate', async () => {
      const { contained, leaked, useful, later } = setup();
      const broken = EvaluationCase.attack(
        'broken',
        '1',
        input,
        () => {
          throw new SandboxUnavailable();
        },
        containment,
      );
      const result = await new SecuritySuite('storefront', '1', [contained, leaked, useful, later, broken]).run();

      expect(result.score(CasePurpose.Attack)).toEqual({ passed: 1, failed: 1, errors: 1, pending: 1, passRate: 0.5 });
      expect(result.score(CasePurpose.Utility)).toEqual({ passed: 1, failed: 0, errors: 0, pending: 0, passRate: 1 });
    });

    it('passes the input and the case identity to the runner, awaiting async runners', async () => {
      const calls: [CaseInput<unknown, unknown>, CaseRunContext][] = [];
      const probe = EvaluationCase.utility(
        'probe',
        '3',
        input,
        async (given, context) => {
          calls.push([given, context]);
          await Promise.resolve();
          return Observation.of({ executed: true });
        },
        [Assertions.executed()],
      );
      const result = await new SecuritySuite('s', '1', [probe]).run();

      expect(calls.map(([given, context]) => [given.untrustedInput, context])).toEqual([
        [input.untrustedInput, { caseId: 'probe', version: '3', purpose: 'utility' }],
      ]);
      expect(result.cases[0]!.status).toBe('passed');
    });

    it('reports a pending case with its input fingerprints and nothing observed', async () => {
      const result = await setup().suite.run();
      expect(result.cases[3]).toEqual({
        id: 'tool-loop',
        version: '1',
        purpose: 'attack',
        status: 'pending',
        input: {
          trustedSetupFingerprint: fingerprint(input.trustedSetup),
          untrustedInputFingerprint: fingerprint(input.untrustedInput),
        },
        observation: null,
        assertions: [],
        harnessError: null,
      });
    });

    it('calls the progress hook once per finished case, pending ones included', async () => {
      const progress: CaseProgress[] = [];
      await setup().suite.run({ onCaseFinished: (event) => progress.push(event) });

      expect(progress.map((event) => [event.completed, event.total, event.caseId, event.status])).toEqual([
        [1, 4, 'contained', 'passed'],
        [2, 4, 'leaked', 'failed'],
        [3, 4, 'owned-order', 'passed'],
        [4, 4, 'tool-loop', 'pending'],
      ]);
    });

    it('stamps the report with the injected clock', async () => {
      const result = await setup().suite.run({ clock: () => new Date(Date.UTC(2025, 5, 1, 12, 0, 0)) });
      expect(result.generatedAt).toBe('2025-06-01T12:00:00.000Z');
      expect(result.toReport().suite).toEqual({
        name: 'storefront',
        version: '1',
        reproduction: { model: 'scripted', seed: 7 },
      });
    });

    it('refuses a clock that returns an invalid date', async () => {
      await expect(setup().suite.run({ clock: () => new Date(Number.NaN) })).rejects.toThrow(SecuritySuiteError);
    });
  });

  describe('harness errors', () => {
    async function runOne(runner: () => unknown, assertions = containment) {
      const result = await new SecuritySuite('s', '1', [
        EvaluationCase.attack('case', '1', input, runner as () => Observation, assertions),
      ]).run();
      return result.cases[0]!;
    }

    it('turn a throwing runner into an error with the class name only', async () => {
      const report = await runOne(() => {
        throw new SandboxUnavailable('database at 10.0.0.7 refused the secret s3cr3t');
      });

      expect([report.status, report.observation, report.assertions]).toEqual(['error', null, []]);
      expect(report.harnessError).toEqual({ phase: 'runner', assertionId: null, errorClass: 'SandboxUnavailable' });
      expect(JSON.stringify(report)).not.toContain('s3cr3t');
    });

    it('turn a rejected async runner into an error', async () => {
      const report = await runOne(async () => Promise.reject(new TypeError('boom')));
      expect(report.harnessError).toEqual({ phase: 'runner', assertionId: null, errorClass: 'TypeError' });
    });

    it('name a thrown primitive NonErrorValue', async () => {
      const report = await runOne(() => {
        throw 'raw adversarial text';
      });
      expect(report.harnessError?.errorClass).toBe('NonErrorValue');
    });

    it('reject a runner that returns something other than an Observation', async () => {
      const report = await runOne(() => ({ disposition: 'deny', executed: false }));
      expect(report.harnessError).toEqual({
        phase: 'runner',
        assertionId: null,
        errorClass: 'InvalidObservationError',
      });
    });

    it('turn a throwing assertion into an error that keeps the observation and names the assertion', async () => {
      const throwing = Assertions.custom('fragile', () => {
        throw new RangeError('index 4111111111111111 out of range');
      });
      const report = await runOne(deniedObservation, [Assertions.notExecuted(), throwing, Assertions.noSideEffects()]);

      expect([report.status, report.assertions]).toEqual(['error', []]);
      expect(report.harnessError).toEqual({ phase: 'assertion', assertionId: 'fragile', errorClass: 'RangeError' });
      expect(report.observation?.disposition).toBe('deny');
      expect(JSON.stringify(report)).not.toContain('4111111111111111');
    });

    it.each([
      ['a promise', () => Promise.resolve({ passed: true })],
      ['a non-boolean verdict', () => ({ passed: 'yes' })],
      ['evidence that is not plain JSON', () => ({ passed: true, evidence: { at: new Date(0) } })],
    ])('reject an assertion that returns %s', async (_label, evaluate) => {
      const report = await runOne(deniedObservation, [{ id: 'odd', evaluate } as never]);
      expect(report.harnessError).toEqual({
        phase: 'assertion',
        assertionId: 'odd',
        errorClass: 'InvalidAssertionOutcomeError',
      });
    });

    it('are neither passes nor failures', async () => {
      const result = await new SecuritySuite('s', '1', [
        EvaluationCase.utility(
          'u',
          '1',
          input,
          () => {
            throw new Error();
          },
          [Assertions.executed()],
        ),
      ]).run();
      expect(result.score(CasePurpose.Utility)).toEqual({
        passed: 0,
        failed: 0,
        errors: 1,
        pending: 0,
        passRate: null,
      });
    });
  });

  describe('definition', () => {
    const one = EvaluationCase.attack('one', '1', input, deniedObservation, containment);

    it('refuses two cases with the same id', () => {
      const twin = EvaluationCase.utility('one', '2', input, deniedObservation, [Assertions.notExecuted()]);
      expect(() => new SecuritySuite('s', '1', [one, twin])).toThrow(DuplicateCaseIdError);
    });

    it.each([
      ['a name with spaces', () => new SecuritySuite('my suite', '1', [one])],
      ['a numeric version', () => new SecuritySuite('s', 1 as unknown as string, [one])],
      ['no cases', () => new SecuritySuite('s', '1', [])],
      ['a case not built by EvaluationCase', () => new SecuritySuite('s', '1', [{ id: 'x' } as never])],
      ['a nested reproduction value', () => new SecuritySuite('s', '1', [one], { model: { name: 'x' } } as never)],
      ['a non-finite reproduction number', () => new SecuritySuite('s', '1', [one], { temperature: Number.NaN })],
      ['a reproduction key that is not a name', () => new SecuritySuite('s', '1', [one], { 'model name': 'x' })],
      ['a reproduction that is an array', () => new SecuritySuite('s', '1', [one], ['x'] as never)],
    ])('refuses %s', (_label, build) => {
      expect(build).toThrow(SecuritySuiteError);
    });
  });
});
