import { isIdentifier, isVersion } from '../cases/evaluation-identifier.js';
import { EvaluationCase } from '../cases/evaluation-case.js';
import type { CaseReport } from '../reports/case-report.js';
import type { ReportedSuite } from '../reports/evaluation-report.js';
import { checkedReproduction, type Reproduction } from './reproduction.js';
import { runCase } from './run-case.js';
import { DuplicateCaseIdError, SecuritySuiteError } from './security-suite.error.js';
import type { SuiteRunOptions } from './suite-run-options.js';
import { SuiteResult } from './suite-result.js';

/**
 * A named, versioned set of evaluation cases with the facts that reproduce a run. Cases run one after
 * another in declaration order (runners often share a sandbox); pending cases are counted, never run.
 *
 * @example
 * const suite = new SecuritySuite('storefront-boundary', '1', [crossCustomer, ownedOrder], { policy: 'storefront-order-policy@1' });
 * const result = await suite.run({ onCaseFinished: (p) => bar.update(p.completed / p.total) });
 * if (result.compareTo(EvaluationBaseline.fromJson(baselineText)).blocking) process.exitCode = 1;
 *
 * @throws SecuritySuiteError for a bad name, version or reproduction or an empty case list; DuplicateCaseIdError.
 */
export class SecuritySuite {
  readonly reproduction: Reproduction;
  readonly cases: readonly EvaluationCase[];

  constructor(
    readonly name: string,
    readonly version: string,
    cases: readonly EvaluationCase[],
    reproduction: Reproduction = {},
  ) {
    if (!isIdentifier(name))
      throw new SecuritySuiteError(
        'the name must be 1-200 characters of letters, digits and . _ : / - (starting with a letter or digit)',
      );
    if (!isVersion(version))
      throw new SecuritySuiteError("the version must be a string of 1-64 letters, digits and . _ + - (e.g. '1')", name);
    if (!Array.isArray(cases) || cases.length === 0)
      throw new SecuritySuiteError('a suite needs at least one case', name);
    const ids = new Set<string>();
    for (const entry of cases) {
      if (!(entry instanceof EvaluationCase))
        throw new SecuritySuiteError('every case must be built with EvaluationCase.attack, .utility or .pending', name);
      if (ids.has(entry.id)) throw new DuplicateCaseIdError(entry.id, name);
      ids.add(entry.id);
    }
    this.cases = Object.freeze([...cases]);
    this.reproduction = checkedReproduction(reproduction);
  }

  /** Runs every case and returns the redacted result. Runner and assertion exceptions become harness errors. */
  async run(options: SuiteRunOptions = {}): Promise<SuiteResult> {
    const reports: CaseReport[] = [];
    const total = this.cases.length;
    for (const entry of this.cases) {
      const report = await runCase(entry);
      reports.push(report);
      options.onCaseFinished?.({
        completed: reports.length,
        total,
        caseId: entry.id,
        purpose: entry.purpose,
        status: report.status,
      });
    }
    return new SuiteResult(this.describe(), this.generatedAt(options.clock), reports);
  }

  private describe(): ReportedSuite {
    return { name: this.name, version: this.version, reproduction: this.reproduction };
  }

  private generatedAt(clock: (() => Date) | undefined): string {
    const now = clock === undefined ? new Date() : clock();
    if (!(now instanceof Date) || Number.isNaN(now.getTime()))
      throw new SecuritySuiteError('the clock must return a valid Date', this.name);
    const iso = now.toISOString();
    if (!/^\d{4}-/.test(iso))
      throw new SecuritySuiteError('the clock returned a date outside the years 0000-9999', this.name);
    return iso;
  }
}
