import type { CaseReport } from './case-report.js';
import { EvaluationReportError } from './evaluation-report.error.js';
import { consistencyProblems } from './report-consistency.js';
import { schemaProblems } from './report-schema.js';
import type { Scores } from './score.js';

/** The schema identifier written into every report. */
export const EVALUATION_REPORT_SCHEMA = 'verdict.evaluation-report.v1';

/** The suite a report belongs to. Reproduction values are application-supplied and reported verbatim. */
export interface ReportedSuite {
  readonly name: string;
  readonly version: string;
  readonly reproduction: { readonly [key: string]: string | number | boolean };
}

/**
 * A redacted suite run, `verdict.evaluation-report.v1`: suite, generation time, per-purpose scores and per-case
 * fingerprints, decisions, assertion outcomes and harness errors. It carries no raw inputs, outputs,
 * arguments or side-effect names. Its JSON Schema ships as `@verdict/evaluation/report.schema.json`.
 */
export interface EvaluationReport {
  readonly schema: typeof EVALUATION_REPORT_SCHEMA;
  readonly suite: ReportedSuite;
  /** ISO 8601, UTC (`Date.prototype.toISOString`). */
  readonly generatedAt: string;
  readonly scores: Scores;
  readonly cases: readonly CaseReport[];
}

/**
 * Reading and writing reports.
 *
 * @example
 * const report = EvaluationReport.parse(readFileSync('security-report.json', 'utf8'));
 */
export const EvaluationReport = Object.freeze({
  schema: EVALUATION_REPORT_SCHEMA,

  /**
   * Validates a report against the JSON Schema and the invariants the schema cannot express (statuses
   * agree with assertion results, unique case ids, scores add up). A string is read as JSON text.
   * @throws EvaluationReportError listing every problem found.
   */
  parse(json: unknown): EvaluationReport {
    let value = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch {
        throw new EvaluationReportError(['the text is not JSON']);
      }
    }
    const problems = schemaProblems(value);
    if (problems.length === 0) problems.push(...consistencyProblems(value as EvaluationReport));
    if (problems.length > 0) throw new EvaluationReportError(problems);
    return value as EvaluationReport;
  },

  /** Pretty-printed JSON with a trailing newline, stable for checking in as a baseline. */
  toJson(report: EvaluationReport): string {
    return `${JSON.stringify(report, null, 2)}\n`;
  },
});
