import type { CaseReport } from '../reports/case-report.js';
import type { EvaluationReport } from '../reports/evaluation-report.js';
import type { Change, CaseSnapshot } from './change.js';
import { changeKindOf } from './change-kind-of.js';
import { ChangeKind, isBlocking } from './change-kind.js';
import { CaseStatus } from '../cases/case-status.js';
import type { Comparison } from './comparison.js';
import { EvaluationBaselineError } from './evaluation-baseline.error.js';

/**
 * Compares two reports of the same suite case by case (matched by id). A case whose claim changed (see
 * {@link sameClaim}) is compared as two cases: the baseline one removed, the current one new. A case failing
 * in both is a regression when an assertion that passed in the baseline fails now. Changes come in the
 * current run's case order, followed by the baseline cases that no longer exist.
 *
 * @throws EvaluationBaselineError when the reports belong to different suites.
 */
export function compareReports(baseline: EvaluationReport, current: EvaluationReport): Comparison {
  if (baseline.suite.name !== current.suite.name)
    throw new EvaluationBaselineError(baseline.suite.name, current.suite.name);
  const before = new Map(baseline.cases.map((entry) => [entry.id, entry]));
  const seen = new Set<string>();
  const changes: Change[] = [];
  const record = (then: CaseReport | null, now: CaseReport | null): void => {
    const kind =
      changeKindOf(then?.status ?? null, now?.status ?? null) ??
      (then !== null && now !== null && failsMore(then, now) ? ChangeKind.BehaviouralRegression : null);
    if (kind === null) return;
    const subject = (now ?? then)!;
    changes.push({
      kind,
      blocking: isBlocking(kind),
      caseId: subject.id,
      purpose: subject.purpose,
      baseline: snapshot(then),
      current: snapshot(now),
    });
  };
  for (const now of current.cases) {
    seen.add(now.id);
    const then = before.get(now.id) ?? null;
    if (then !== null && !sameClaim(then, now)) {
      record(then, null);
      record(null, now);
    } else {
      record(then, now);
    }
  }
  for (const then of baseline.cases) if (!seen.has(then.id)) record(then, null);
  return { changes, blocking: changes.some((change) => change.blocking) };
}

/**
 * Whether two reports of a case make the same claim: the same purpose and version, the same input
 * fingerprints and, when both were judged (passed or failed), the same set of assertion ids. A case whose
 * assertions or input changed under the same version is not the claim its baseline accepted, so it cannot
 * inherit that baseline's verdict. Assertion ids are compared only when both sides have results: a pending or
 * errored case reports none (and only a pending case may lack an input, where removed-plus-new gives the same
 * changes as the status table).
 */
function sameClaim(then: CaseReport, now: CaseReport): boolean {
  if (then.purpose !== now.purpose || then.version !== now.version) return false;
  if (then.input?.trustedSetupFingerprint !== now.input?.trustedSetupFingerprint) return false;
  if (then.input?.untrustedInputFingerprint !== now.input?.untrustedInputFingerprint) return false;
  if (!judged(then) || !judged(now)) return true;
  const before = new Set(then.assertions.map((assertion) => assertion.id));
  const after = new Set(now.assertions.map((assertion) => assertion.id));
  return before.size === after.size && [...after].every((id) => before.has(id));
}

function judged(entry: CaseReport): boolean {
  return entry.status === CaseStatus.Passed || entry.status === CaseStatus.Failed;
}

/**
 * A case that failed in the baseline and fails again, with an assertion failing now that passed then: an
 * accepted failure got worse (say, an attack that was reported is now also executed). A regression.
 */
function failsMore(then: CaseReport, now: CaseReport): boolean {
  if (then.status !== CaseStatus.Failed || now.status !== CaseStatus.Failed) return false;
  const passedThen = new Set(then.assertions.filter((assertion) => assertion.passed).map((assertion) => assertion.id));
  return now.assertions.some((assertion) => !assertion.passed && passedThen.has(assertion.id));
}

function snapshot(entry: CaseReport | null): CaseSnapshot | null {
  return entry === null ? null : { version: entry.version, purpose: entry.purpose, status: entry.status };
}
