import { EvaluationReport } from '../reports/evaluation-report.js';
import { EvaluationReportError } from '../reports/evaluation-report.error.js';
import { compareReports } from './compare-reports.js';
import type { Comparison } from './comparison.js';

/**
 * A report checked into the repository as the accepted state of a suite. It is validated exactly like any
 * report; the current run is compared with it through `SuiteResult.compareTo` or {@link compare}.
 *
 * @example
 * const baseline = EvaluationBaseline.fromJson(readFileSync('test/baselines/storefront.json', 'utf8'));
 * const comparison = (await suite.run()).compareTo(baseline);
 * if (comparison.blocking) throw new Error(comparison.changes.filter((c) => c.blocking).map((c) => `${c.kind} ${c.caseId}`).join('\n'));
 */
export class EvaluationBaseline {
  private constructor(readonly report: EvaluationReport) {}

  /** @throws EvaluationReportError when the text is not a valid `verdict.evaluation-report.v1` report. */
  static fromJson(text: string): EvaluationBaseline {
    if (typeof text !== 'string') throw new EvaluationReportError(['a baseline must be read from JSON text']);
    return new EvaluationBaseline(EvaluationReport.parse(text));
  }

  /** A baseline from an already parsed value; validated all the same. @throws EvaluationReportError */
  static fromReport(report: unknown): EvaluationBaseline {
    return new EvaluationBaseline(EvaluationReport.parse(report));
  }

  /**
   * Compares a current report (e.g. another run's parsed JSON) with this baseline. The report is validated first, as
   * the baseline was: one that contradicts itself (a `passed` case with a failed assertion, scores that do not add
   * up) is refused, not compared.
   * @throws EvaluationReportError when `current` is not a valid `verdict.evaluation-report.v1` report
   * @throws EvaluationBaselineError when it is a report of another suite
   */
  compare(current: EvaluationReport): Comparison {
    return compareReports(this.report, EvaluationReport.parse(current));
  }
}
