import { Disposition, fingerprintString } from '@verdict/nestjs';
import { CASE_PURPOSES } from '../cases/case-purpose.js';
import { CaseStatus } from '../cases/case-status.js';
import { HarnessPhase, type CaseReport, type ReportedObservation } from './case-report.js';
import type { EvaluationReport } from './evaluation-report.js';
import { scoresOf, type Score } from './score.js';

/**
 * What the schema cannot say: statuses that contradict their assertions, duplicate ids, scores that do not
 * add up, capability fingerprints that do not match their names. Call only on schema-valid reports.
 */
export function consistencyProblems(report: EvaluationReport): string[] {
  const problems: string[] = [];
  const generatedAt = new Date(report.generatedAt);
  if (Number.isNaN(generatedAt.getTime()) || generatedAt.toISOString() !== report.generatedAt)
    problems.push('/generatedAt is not a real instant');
  const seen = new Set<string>();
  report.cases.forEach((entry, index) => {
    const where = `/cases/${index}`;
    if (seen.has(entry.id)) problems.push(`${where}/id duplicates an earlier case id`);
    seen.add(entry.id);
    caseProblems(entry, where, problems);
  });
  const expected = scoresOf(report.cases);
  for (const purpose of CASE_PURPOSES) {
    if (!sameScore(report.scores[purpose], expected[purpose]))
      problems.push(`/scores/${purpose} does not match the cases`);
  }
  return problems;
}

function caseProblems(entry: CaseReport, where: string, problems: string[]): void {
  const ids = new Set(entry.assertions.map((assertion) => assertion.id));
  if (ids.size !== entry.assertions.length) problems.push(`${where}/assertions repeats an assertion id`);
  if (entry.input === null && entry.status !== CaseStatus.Pending)
    problems.push(`${where}/input may be null only for a pending case`);
  if (entry.observation !== null) observationProblems(entry.observation, `${where}/observation`, problems);
  const error = entry.harnessError;
  if (error !== null && (error.phase === HarnessPhase.Assertion) !== (error.assertionId !== null)) {
    problems.push(`${where}/harnessError/assertionId must be set exactly when the phase is assertion`);
  }
  const failures = entry.assertions.filter((assertion) => !assertion.passed).length;
  switch (entry.status) {
    case CaseStatus.Passed:
    case CaseStatus.Failed: {
      if (entry.observation === null || error !== null || entry.assertions.length === 0) {
        problems.push(`${where} ${entry.status} needs an observation, assertion results and no harness error`);
      } else if ((entry.status === CaseStatus.Passed) !== (failures === 0)) {
        problems.push(`${where}/status ${entry.status} contradicts its assertion results`);
      }
      return;
    }
    case CaseStatus.Error:
      if (error === null || entry.assertions.length > 0)
        problems.push(`${where} error needs a harness error and no assertion results`);
      else if (error.phase === HarnessPhase.Runner && entry.observation !== null)
        problems.push(`${where}/observation must be null when the runner failed`);
      else if (error.phase === HarnessPhase.Assertion && entry.observation === null)
        problems.push(`${where}/observation is missing although only an assertion failed`);
      return;
    case CaseStatus.Pending:
      if (entry.observation !== null || error !== null || entry.assertions.length > 0)
        problems.push(`${where} pending must have no observation, assertion results or harness error`);
      return;
  }
}

function observationProblems(observation: ReportedObservation, where: string, problems: string[]): void {
  if (!observation.executed && observation.toolCalls.some((call) => call.executed))
    problems.push(`${where}/executed is false but a tool call executed`);
  observation.toolCalls.forEach((call, index) => {
    if (call.capability !== null && fingerprintString(call.capability) !== call.capabilityFingerprint) {
      problems.push(`${where}/toolCalls/${index}/capabilityFingerprint does not match the capability`);
    }
    if (call.executed && call.disposition !== null && call.disposition !== Disposition.Permit) {
      problems.push(`${where}/toolCalls/${index} executed under a disposition that does not permit`);
    }
  });
}

function sameScore(actual: Score, expected: Score): boolean {
  return (
    actual.passed === expected.passed &&
    actual.failed === expected.failed &&
    actual.errors === expected.errors &&
    actual.pending === expected.pending &&
    actual.passRate === expected.passRate
  );
}
