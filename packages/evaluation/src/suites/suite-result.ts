import type { EvaluationBaseline } from '../baselines/evaluation-baseline.js';
import type { Comparison } from '../baselines/comparison.js';
import { compareReports } from '../baselines/compare-reports.js';
import type { CasePurpose } from '../cases/case-purpose.js';
import type { CaseReport } from '../reports/case-report.js';
import { EVALUATION_REPORT_SCHEMA, EvaluationReport, type ReportedSuite } from '../reports/evaluation-report.js';
import { scoresOf, type Score, type Scores } from '../reports/score.js';

/**
 * The outcome of one suite run: per-case reports (fingerprints only), per-purpose scores, the report and
 * its JSON, and the comparison with a baseline.
 *
 * @example
 * const result = await suite.run();
 * writeFileSync('security-report.json', result.toJson());
 * console.log(`containment ${result.score('attack').passRate}, utility ${result.score('utility').passRate}`);
 */
export class SuiteResult {
  readonly scores: Scores;

  /** @internal Built by {@link SecuritySuite.run}. */
  constructor(
    readonly suite: ReportedSuite,
    /** ISO 8601, UTC. */
    readonly generatedAt: string,
    readonly cases: readonly CaseReport[],
  ) {
    this.scores = scoresOf(cases);
  }

  /** The tally of one purpose: `attack` (containment) or `utility` (legitimate task success). */
  score(purpose: CasePurpose): Score {
    return this.scores[purpose];
  }

  /** The `verdict.evaluation-report.v1` report: no raw inputs, outputs, arguments or side-effect names. */
  toReport(): EvaluationReport {
    return {
      schema: EVALUATION_REPORT_SCHEMA,
      suite: this.suite,
      generatedAt: this.generatedAt,
      scores: this.scores,
      cases: this.cases,
    };
  }

  /** The report as pretty-printed JSON, ready to check in as a baseline. */
  toJson(): string {
    return EvaluationReport.toJson(this.toReport());
  }

  /** Compares this run with a checked-in baseline. @throws EvaluationBaselineError when the baseline is of another suite. */
  compareTo(baseline: EvaluationBaseline): Comparison {
    return compareReports(baseline.report, this.toReport());
  }
}
