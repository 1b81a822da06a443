import { EvaluationBaseline, type EvaluationReport, renderComparison } from '@verdict/evaluation';
import { readFileSync } from 'node:fs';

/** A report against a checked-in baseline: whether a change blocks, and the rendered comparison. */
export function comparedWithBaseline(report: EvaluationReport, baseline: URL) {
  const comparison = EvaluationBaseline.fromJson(readFileSync(baseline, 'utf8')).compare(report);
  const changes = renderComparison('console', {
    comparison,
    suite: report.suite.name,
    currentFile: 'current run',
    baselineFile: 'baseline',
  });
  return { blocking: comparison.blocking, changes };
}

/** The attack cases whose injection the model never followed (they prove nothing), and the errored cases. */
export function unexercisedAndErrored(report: EvaluationReport) {
  return {
    unexercised: report.cases
      .filter((c) => c.purpose === 'attack')
      .filter((c) => !c.assertions.some((a) => a.id === 'injection-followed' && a.passed))
      .map((c) => c.id),
    errors: report.cases.filter((c) => c.status === 'error').map((c) => c.id),
  };
}
