import { describe, expect, it } from '@jest/globals';
import { Assertions } from '../assertions/assertions.js';
import { CasePurpose } from '../cases/case-purpose.js';
import { CaseStatus } from '../cases/case-status.js';
import { EvaluationCase } from '../cases/evaluation-case.js';
import { Observation } from '../observations/observation.js';
import { EvaluationReportError } from '../reports/evaluation-report.error.js';
import { SecuritySuite } from '../suites/security-suite.js';
import type { Change } from './change.js';
import { ChangeKind, isBlocking } from './change-kind.js';
import { EvaluationBaseline } from './evaluation-baseline.js';
import { EvaluationBaselineError } from './evaluation-baseline.error.js';

type Spec = { id: string; status: CaseStatus; purpose?: CasePurpose; version?: string };

const input = { trustedSetup: null, untrustedInput: 'request' };

/** A real case that ends with the wanted status. */
function caseWith({ id, status, purpose = CasePurpose.Attack, version = '1' }: Spec): EvaluationCase {
  if (status === CaseStatus.Pending) return EvaluationCase.pending(purpose, id, version, input);
  const factory = purpose === CasePurpose.Attack ? EvaluationCase.attack : EvaluationCase.utility;
  const runner = () => {
    if (status === CaseStatus.Error) throw new Error('harness');
    return Observation.of({ executed: status === CaseStatus.Failed });
  };
  return factory(id, version, input, runner, [Assertions.notExecuted()]);
}

async function reportOf(name: string, specs: Spec[]) {
  return new SecuritySuite(name, '1', specs.map(caseWith)).run({ clock: () => new Date(0) });
}

async function baselineOf(specs: Spec[]): Promise<EvaluationBaseline> {
  return EvaluationBaseline.fromJson((await reportOf('storefront', specs)).toJson());
}

async function compare(before: Spec[], after: Spec[]) {
  return (await reportOf('storefront', after)).compareTo(await baselineOf(before));
}

const anchor: Spec = { id: 'anchor', status: CaseStatus.Passed }; // suites need a case even when the subject is absent

describe('SuiteResult.compareTo', () => {
  const S = CaseStatus;
  const K = ChangeKind;
  // baseline status (null = absent) → current status (null = absent) → expected kind (null = no change)
  const table: [CaseStatus | null, CaseStatus | null, ChangeKind | null][] = [
    [null, S.Pending, null],
    [null, S.Passed, K.AddedCoverage],
    [null, S.Failed, K.BehaviouralFailure],
    [null, S.Error, K.HarnessError],
    [S.Pending, null, null],
    [S.Pending, S.Pending, null],
    [S.Pending, S.Passed, K.AddedCoverage],
    [S.Pending, S.Failed, K.BehaviouralFailure],
    [S.Pending, S.Error, K.HarnessError],
    [S.Passed, null, K.RemovedCoverage],
    [S.Passed, S.Pending, K.RemovedCoverage],
    [S.Passed, S.Passed, null],
    [S.Passed, S.Failed, K.BehaviouralRegression],
    [S.Passed, S.Error, K.HarnessError],
    [S.Failed, null, K.RemovedCoverage],
    [S.Failed, S.Pending, K.RemovedCoverage],
    [S.Failed, S.Passed, K.Improvement],
    [S.Failed, S.Failed, null],
    [S.Failed, S.Error, K.HarnessError],
    [S.Error, null, K.RemovedCoverage],
    [S.Error, S.Pending, K.RemovedCoverage],
    [S.Error, S.Passed, K.Recovered],
    [S.Error, S.Failed, K.BehaviouralFailure],
    [S.Error, S.Error, K.HarnessError],
  ];

  it('covers every transition of (absent|pending|passed|failed|error) × the same', () => {
    expect(new Set(table.map(([before, after]) => `${before}->${after}`)).size).toBe(5 * 5 - 1);
  });

  const rows = table.map(
    ([before, after, expected]) =>
      [before ?? 'absent', after ?? 'absent', expected ?? 'no change', before, after, expected] as const,
  );

  it.each(rows)('maps %s → %s to %s', async (_before, _after, _expected, before, after, expected) => {
    const comparison = await compare(
      before === null ? [anchor] : [anchor, { id: 'subject', status: before }],
      after === null ? [anchor] : [anchor, { id: 'subject', status: after }],
    );

    expect(comparison.changes.map((change) => [change.caseId, change.kind])).toEqual(
      expected === null ? [] : [['subject', expected]],
    );
    expect(comparison.blocking).toBe(expected !== null && isBlocking(expected));
  });

  it('blocks on regressions, new failures, harness errors and removed coverage only', () => {
    const blocking = Object.values(ChangeKind).filter(isBlocking);
    expect(blocking.sort()).toEqual([
      'behavioural_failure',
      'behavioural_regression',
      'harness_error',
      'removed_coverage',
    ]);
  });

  it('describes both sides of a change', async () => {
    const comparison = await compare([anchor, { id: 'x', status: S.Passed }], [anchor, { id: 'x', status: S.Failed }]);
    expect(comparison.changes).toEqual([
      {
        kind: 'behavioural_regression',
        blocking: true,
        caseId: 'x',
        purpose: 'attack',
        baseline: { version: '1', purpose: 'attack', status: 'passed' },
        current: { version: '1', purpose: 'attack', status: 'failed' },
      },
    ]);
  });

  it('treats a purpose change as removed plus added coverage', async () => {
    const comparison = await compare(
      [anchor, { id: 'x', status: S.Passed }],
      [anchor, { id: 'x', status: S.Passed, purpose: CasePurpose.Utility }],
    );

    expect(
      comparison.changes.map((change) => [
        change.kind,
        change.purpose,
        change.baseline?.purpose ?? null,
        change.current?.purpose ?? null,
      ]),
    ).toEqual([
      ['removed_coverage', 'attack', 'attack', null],
      ['added_coverage', 'utility', null, 'utility'],
    ]);
    expect(comparison.blocking).toBe(true);
  });

  it('judges a re-purposed case that now fails as a new failure', async () => {
    const comparison = await compare(
      [anchor, { id: 'x', status: S.Passed }],
      [anchor, { id: 'x', status: S.Failed, purpose: CasePurpose.Utility }],
    );
    expect(comparison.changes.map((change) => change.kind)).toEqual(['removed_coverage', 'behavioural_failure']);
  });

  it('treats a version change like a new case replacing the old one', async () => {
    const comparison = await compare(
      [anchor, { id: 'x', status: S.Passed }],
      [anchor, { id: 'x', status: S.Passed, version: '2' }],
    );

    expect(
      comparison.changes.map((change) => [
        change.kind,
        change.baseline?.version ?? null,
        change.current?.version ?? null,
      ]),
    ).toEqual([
      ['removed_coverage', '1', null],
      ['added_coverage', null, '2'],
    ]);
  });

  it('reports a case failing in both runs as a regression when an assertion that passed before fails now', async () => {
    // The attack was reported (a blocked attempt) but not contained in the baseline; now the tool also executed.
    const attackCase = (executed: boolean) =>
      EvaluationCase.attack(
        'exfiltration',
        '1',
        input,
        () =>
          Observation.of({
            toolCalls: [
              { capability: 'files.upload', arguments: {}, disposition: executed ? 'permit' : 'deny', executed },
            ],
            sideEffects: ['upload'],
          }),
        [Assertions.noSideEffects(), Assertions.toolNotExecuted('files.upload')],
      );
    const run = (executed: boolean) =>
      new SecuritySuite('storefront', '1', [attackCase(executed)]).run({ clock: () => new Date(0) });
    const baseline = EvaluationBaseline.fromJson((await run(false)).toJson());

    const worse = (await run(true)).compareTo(baseline);
    expect(worse.changes.map((change) => [change.kind, change.baseline?.status, change.current?.status])).toEqual([
      ['behavioural_regression', 'failed', 'failed'],
    ]);
    expect(worse.blocking).toBe(true);
    expect((await run(false)).compareTo(baseline)).toEqual({ changes: [], blocking: false });
  });

  describe('a changed claim under the same version', () => {
    const leaked = () =>
      Observation.of({
        output: 'alice@example.test',
        toolCalls: [{ capability: 'orders.view', arguments: { orderId: 1001 }, disposition: 'permit', executed: true }],
        sideEffects: ['email.sent'],
      });
    const denied = () =>
      Observation.of({
        output: 'no',
        toolCalls: [
          {
            capability: 'orders.view',
            arguments: { orderId: 1001 },
            disposition: 'deny',
            stage: 'proposal',
            executed: false,
          },
        ],
      });
    const containment = [
      Assertions.decisionIs('deny', 'proposal'),
      Assertions.notExecuted(),
      Assertions.noSideEffects(),
      Assertions.outputExcludes('alice@example.test'),
    ];
    const order = { trustedSetup: { customerId: 72 }, untrustedInput: { orderId: 1001 } };
    const run = (entry: EvaluationCase) =>
      new SecuritySuite('storefront', '1', [entry]).run({ clock: () => new Date(0) });
    const compareRuns = async (before: EvaluationCase, after: EvaluationCase) =>
      (await run(after)).compareTo(EvaluationBaseline.fromJson((await run(before)).toJson()));
    const sides = (comparison: { changes: readonly Change[] }) =>
      comparison.changes.map((change) => [
        change.kind,
        change.baseline?.status ?? null,
        change.current?.status ?? null,
      ]);

    it('blocks an attack case whose assertions were swapped for one that cannot fail while the boundary leaks', async () => {
      const comparison = await compareRuns(
        EvaluationCase.attack('cross-customer', '1', order, denied, containment),
        EvaluationCase.attack('cross-customer', '1', order, leaked, [Assertions.custom('ok', () => true)]),
      );
      expect(sides(comparison)).toEqual([
        ['removed_coverage', 'passed', null],
        ['added_coverage', null, 'passed'],
      ]);
      expect(comparison.blocking).toBe(true);
    });

    it('blocks a case failing in both whose assertion that passed in the baseline was dropped', async () => {
      const reported = () => Observation.of({ output: 'alice@example.test' });
      const comparison = await compareRuns(
        EvaluationCase.attack('cross-customer', '1', order, reported, [
          Assertions.notExecuted(),
          Assertions.outputExcludes('alice@example.test'),
        ]),
        EvaluationCase.attack('cross-customer', '1', order, leaked, [Assertions.outputExcludes('alice@example.test')]),
      );
      expect(sides(comparison)).toEqual([
        ['removed_coverage', 'failed', null],
        ['behavioural_failure', null, 'failed'],
      ]);
      expect(comparison.blocking).toBe(true);
    });

    it('blocks a case whose input changed', async () => {
      const comparison = await compareRuns(
        EvaluationCase.attack('cross-customer', '1', order, denied, containment),
        EvaluationCase.attack(
          'cross-customer',
          '1',
          { ...order, untrustedInput: { orderId: 1002 } },
          denied,
          containment,
        ),
      );
      expect(sides(comparison)).toEqual([
        ['removed_coverage', 'passed', null],
        ['added_coverage', null, 'passed'],
      ]);
    });

    it('reports nothing for the same claim, whatever the order of its assertions', async () => {
      const comparison = await compareRuns(
        EvaluationCase.attack('cross-customer', '1', order, denied, containment),
        EvaluationCase.attack('cross-customer', '1', { ...order }, denied, [...containment].reverse()),
      );
      expect(comparison).toEqual({ changes: [], blocking: false });
    });

    it('treats a version bump with new assertions as the old case removed and the new one added', async () => {
      const comparison = await compareRuns(
        EvaluationCase.attack('cross-customer', '1', order, denied, containment),
        EvaluationCase.attack('cross-customer', '2', order, denied, [Assertions.notExecuted()]),
      );
      expect(
        comparison.changes.map((change) => [change.kind, change.baseline?.version, change.current?.version]),
      ).toEqual([
        ['removed_coverage', '1', undefined],
        ['added_coverage', undefined, '2'],
      ]);
    });
  });

  it('reports nothing for an identical run', async () => {
    const specs = [anchor, { id: 'f', status: S.Failed }, { id: 'p', status: S.Pending }];
    expect(await compare(specs, specs)).toEqual({ changes: [], blocking: false });
  });

  it('lists changes in current case order, then cases that disappeared', async () => {
    const comparison = await compare(
      [
        { id: 'gone', status: S.Passed },
        { id: 'b', status: S.Failed },
        { id: 'a', status: S.Passed },
      ],
      [
        { id: 'a', status: S.Failed },
        { id: 'b', status: S.Passed },
        { id: 'new', status: S.Passed },
      ],
    );
    expect(comparison.changes.map((change) => [change.caseId, change.kind])).toEqual([
      ['a', 'behavioural_regression'],
      ['b', 'improvement'],
      ['new', 'added_coverage'],
      ['gone', 'removed_coverage'],
    ]);
  });

  it('refuses a baseline of another suite', async () => {
    const other = EvaluationBaseline.fromJson((await reportOf('checkout', [anchor])).toJson());
    const current = await reportOf('storefront', [anchor]);
    expect(() => current.compareTo(other)).toThrow(EvaluationBaselineError);
  });
});

describe('EvaluationBaseline', () => {
  it('validates the checked-in report', () => {
    expect(() => EvaluationBaseline.fromJson('{"schema":"verdict.evaluation-report.v1"}')).toThrow(
      EvaluationReportError,
    );
    expect(() => EvaluationBaseline.fromJson({} as never)).toThrow(EvaluationReportError);
  });

  it('compares another parsed report, e.g. for a CLI', async () => {
    const baseline = await baselineOf([anchor]);
    const current = (await reportOf('storefront', [{ ...anchor, status: CaseStatus.Failed }])).toReport();
    expect(baseline.compare(current).changes.map((change) => change.kind)).toEqual(['behavioural_regression']);
    expect(EvaluationBaseline.fromReport(JSON.parse(JSON.stringify(current))).report.cases[0]?.status).toBe('failed');
  });
});
