import { assertCanonicalJson } from '@verdict/nestjs';
import type { AssertionOutcome } from '../assertions/assertion.js';
import { InvalidAssertionOutcomeError } from '../assertions/invalid-assertion-outcome.error.js';
import type { CaseInput } from '../cases/case-input.js';
import { CaseStatus } from '../cases/case-status.js';
import { type EvaluationCase, assertionIdsOf } from '../cases/evaluation-case.js';
import { InvalidObservationError } from '../observations/invalid-observation.error.js';
import { Observation } from '../observations/observation.js';
import {
  HarnessPhase,
  type AssertionResult,
  type CaseReport,
  type HarnessError,
  type ReportedObservation,
} from '../reports/case-report.js';
import { summarizeObservation } from '../reports/observation-summary.js';
import { errorClassOf } from './harness-error-class.js';

/**
 * Runs one case and reports it. Pending cases are not run. Anything the runner or an assertion throws
 * becomes a harness error (class name only); it is never a pass or a failure.
 */
export async function runCase(evaluationCase: EvaluationCase): Promise<CaseReport> {
  const { runner, input } = evaluationCase;
  // Each assertion is reported under the id read when the case was defined, never the one it answers now (ADR 0200).
  const assertionIds = assertionIdsOf(evaluationCase);
  if (runner === null) return reportOf(evaluationCase, CaseStatus.Pending, null, [], null);
  let observation: Observation;
  try {
    const produced: unknown = await runner(input as CaseInput<unknown, unknown>, {
      caseId: evaluationCase.id,
      version: evaluationCase.version,
      purpose: evaluationCase.purpose,
    });
    if (!(produced instanceof Observation))
      throw new InvalidObservationError('the runner must return (or resolve to) an Observation');
    observation = produced;
  } catch (thrown) {
    return reportOf(evaluationCase, CaseStatus.Error, null, [], {
      phase: HarnessPhase.Runner,
      assertionId: null,
      errorClass: errorClassOf(thrown),
    });
  }
  const summary = summarizeObservation(observation);
  const results: AssertionResult[] = [];
  for (const [index, assertion] of evaluationCase.assertions.entries()) {
    const assertionId = assertionIds[index]!;
    try {
      results.push(resultOf(assertionId, assertion.evaluate(observation)));
    } catch (thrown) {
      return reportOf(evaluationCase, CaseStatus.Error, summary, [], {
        phase: HarnessPhase.Assertion,
        assertionId,
        errorClass: errorClassOf(thrown),
      });
    }
  }
  return reportOf(
    evaluationCase,
    results.every((result) => result.passed) ? CaseStatus.Passed : CaseStatus.Failed,
    summary,
    results,
    null,
  );
}

function resultOf(id: string, outcome: AssertionOutcome): AssertionResult {
  if (typeof (outcome as { then?: unknown } | null)?.then === 'function') {
    Promise.resolve(outcome).catch(() => undefined); // an async assertion: its rejection must not go unhandled
    throw new InvalidAssertionOutcomeError(id, 'it returned a promise; assertions are synchronous');
  }
  if (typeof outcome !== 'object' || outcome === null || typeof outcome.passed !== 'boolean') {
    throw new InvalidAssertionOutcomeError(id, 'it is not an object with a boolean `passed`');
  }
  if (outcome.evidence === undefined) return { id, passed: outcome.passed };
  try {
    assertCanonicalJson(outcome.evidence);
  } catch (cause) {
    throw new InvalidAssertionOutcomeError(id, 'its evidence is not plain JSON', { cause });
  }
  return { id, passed: outcome.passed, evidence: outcome.evidence };
}

function reportOf(
  evaluationCase: EvaluationCase,
  status: CaseStatus,
  observation: ReportedObservation | null,
  assertions: AssertionResult[],
  harnessError: HarnessError | null,
): CaseReport {
  const { input } = evaluationCase;
  return {
    id: evaluationCase.id,
    version: evaluationCase.version,
    purpose: evaluationCase.purpose,
    status,
    input:
      input === null
        ? null
        : {
            trustedSetupFingerprint: input.trustedSetupFingerprint,
            untrustedInputFingerprint: input.untrustedInputFingerprint,
          },
    observation,
    assertions,
    harnessError,
  };
}
