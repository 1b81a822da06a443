import { describe, expect, it } from '@jest/globals';
import {
  Assertions,
  EvaluationBaseline,
  EvaluationCase,
  EvaluationReportError,
  Observation,
  SecuritySuite,
} from '@verdict/evaluation';

// docs/evaluation.md §3: "A report edited by hand so that it contradicts itself is refused rather than trusted" —
// the current report of `baseline.compare(current)` as much as the baseline.

const input = { trustedSetup: { customerId: 72 }, untrustedInput: { orderId: 1001 } };
const run = (executed: boolean) =>
  new SecuritySuite('storefront', '1', [
    EvaluationCase.attack('orders/cross-customer-cancel', '1', input, () => Observation.of({ executed }), [
      Assertions.notExecuted(),
    ]),
  ]).run({ clock: () => new Date(0) });
/** A report as another run wrote it, parsed from its JSON. */
const reportOf = async (executed: boolean) => JSON.parse((await run(executed)).toJson());

describe('EvaluationBaseline.compare(current)', () => {
  it('refuses a current report whose failed case was edited to `passed`, rather than comparing it as passed', async () => {
    const baseline = EvaluationBaseline.fromJson((await run(false)).toJson());
    const edited = await reportOf(true);
    expect(edited.cases[0].status).toBe('failed');
    edited.cases[0].status = 'passed'; // its not-executed assertion still says failed, its scores still count a failure

    expect(() => baseline.compare(edited)).toThrow(EvaluationReportError);
  });

  it('compares a valid current report as before: the leak blocks, an unchanged run does not (control)', async () => {
    const baseline = EvaluationBaseline.fromJson((await run(false)).toJson());

    const leaked = baseline.compare(await reportOf(true));
    expect(leaked.blocking).toBe(true);
    expect(leaked.changes.map((change) => change.kind)).toEqual(['behavioural_regression']);
    expect(baseline.compare(await reportOf(false))).toEqual({ changes: [], blocking: false });
    expect(baseline.compare((await run(false)).toReport())).toEqual({ changes: [], blocking: false });
  });
});
