import { Injectable } from '@nestjs/common';
import { CASE_PURPOSES, EvaluationBaseline, describeChange, renderComparison } from '@verdict/evaluation';
import { storefrontAttackPack } from '@verdict/storefront';
import { readFile } from 'node:fs/promises';
import type { EvaluationRunView } from '../runs/lab-run.js';

/** The storefront attack pack's checked-in baseline (the same file `npm test` compares with). */
const BASELINE_FILE = new URL(
  '../../../../libs/storefront/evaluation/storefront-attack-pack.baseline.json',
  import.meta.url,
);

/**
 * The evaluation lab: runs the storefront attack pack (its own sandboxes, not this session's database), scores
 * it per purpose and compares it with the checked-in baseline. The session keeps its last report for download.
 */
@Injectable()
export class AttackPackScenario {
  private lastReport: string | null = null;

  async run(): Promise<EvaluationRunView> {
    const result = await storefrontAttackPack().run();
    const report = result.toReport();
    this.lastReport = result.toJson();
    const comparison = EvaluationBaseline.fromJson(await readFile(BASELINE_FILE, 'utf8')).compare(report);
    return {
      suite: `${report.suite.name} v${report.suite.version}`,
      generatedAt: report.generatedAt,
      scores: CASE_PURPOSES.map((purpose) => ({ purpose, ...report.scores[purpose] })),
      cases: report.cases.map(({ id, purpose, status }) => ({ id, purpose, status })),
      blocking: comparison.blocking,
      changes: comparison.changes.map(describeChange),
      rendered: renderComparison('console', {
        comparison,
        suite: report.suite.name,
        currentFile: 'this run',
        baselineFile: 'libs/storefront/evaluation/storefront-attack-pack.baseline.json',
      }),
    };
  }

  /** The last run's report (the `verdict-eval run --out` JSON), or `null` before the first run. */
  report(): string | null {
    return this.lastReport;
  }
}
