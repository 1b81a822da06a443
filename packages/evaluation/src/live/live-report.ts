import { readFileSync } from 'node:fs';
import ajvModule from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ReportedSuite } from '../reports/evaluation-report.js';
import type { ReportedProvider } from './live-provider.js';
import {
  caseStatistics,
  packStatistics,
  type LiveCaseMeta,
  type LiveCaseStatistics,
  type LiveThresholds,
  type PackStatistics,
} from './live-statistics.js';
import { LiveArm, TrialOutcome } from './trial-outcome.js';
import type { TrialRecord } from './trial-record.js';

/** The schema identifier of a live report. Deterministic reports stay `verdict.evaluation-report.v1`. */
export const LIVE_REPORT_SCHEMA = 'verdict.live-report.v1';

/** What the run was asked to do, recorded so a resumed run can check it continues the same plan. */
export interface LivePlan extends LiveThresholds {
  readonly trialsPerCase: number;
  /** Whether the unguarded control arm ran next to the guarded one. */
  readonly control: boolean;
  readonly concurrency: number;
  /** Confidence of every interval (two-sided). */
  readonly confidence: number;
}

/** The per-run budget; `null` is no limit. */
export interface LiveBudget {
  readonly maxTrials: number | null;
  readonly maxTokens: number | null;
  /** Tokens the provider reported over every recorded trial. */
  readonly tokensUsed: number;
}

/** Why a run stopped before every planned trial was recorded. */
export const LiveStop = { MaxTrials: 'max_trials', MaxTokens: 'max_tokens' } as const;
export type LiveStop = (typeof LiveStop)[keyof typeof LiveStop];

/**
 * A `verdict.live-report.v1` report: the suite, the provider (model id, sampling settings, base URL
 * fingerprint; never a key), the plan and budget, per case and per pack the figures, and every trial.
 * The figures are derived from the trials: {@link LiveReport.parse} recomputes and refuses a mismatch.
 */
export interface LiveReport {
  readonly schema: typeof LIVE_REPORT_SCHEMA;
  readonly suite: ReportedSuite;
  readonly generatedAt: string;
  /** Every planned trial is recorded. A partial report (a stopped or interrupted run) can be resumed. */
  readonly complete: boolean;
  readonly stoppedBy: LiveStop | null;
  readonly provider: ReportedProvider;
  readonly plan: LivePlan;
  readonly budget: LiveBudget;
  readonly cases: readonly LiveCaseStatistics[];
  readonly pack: PackStatistics;
  readonly trials: readonly TrialRecord[];
}

/** A live report that does not validate: every problem found. */
export class LiveReportError extends Error {
  override name = 'LiveReportError';

  constructor(readonly problems: readonly string[]) {
    super(`invalid live report: ${problems.join('; ')}`);
  }
}

/** The JSON Schema of a live report, shipped as `@verdict/evaluation/live-report.schema.json`. */
export const LIVE_REPORT_SCHEMA_FILE = new URL('../../schemas/live-report.v1.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;

/** Builds, checks and serialises live reports. */
export const LiveReport = {
  /** Assembles a report from the case definitions and the trials: the figures are computed here. */
  build(parts: {
    suite: ReportedSuite;
    generatedAt: string;
    stoppedBy: LiveStop | null;
    provider: ReportedProvider;
    plan: LivePlan;
    budget: Omit<LiveBudget, 'tokensUsed'>;
    cases: readonly LiveCaseMeta[];
    trials: readonly TrialRecord[];
  }): LiveReport {
    const trials = [...parts.trials].sort(
      (a, b) =>
        parts.cases.findIndex((c) => c.id === a.case) - parts.cases.findIndex((c) => c.id === b.case) ||
        a.index - b.index ||
        a.arm.localeCompare(b.arm),
    );
    const cases = parts.cases.map((meta) => caseStatistics(meta, trials, parts.plan, parts.plan.control));
    const planned = parts.cases.length * parts.plan.trialsPerCase * (parts.plan.control ? 2 : 1);
    return {
      schema: LIVE_REPORT_SCHEMA,
      suite: parts.suite,
      generatedAt: parts.generatedAt,
      complete: trials.length === planned,
      stoppedBy: trials.length === planned ? null : parts.stoppedBy,
      provider: parts.provider,
      plan: parts.plan,
      budget: { ...parts.budget, tokensUsed: trials.reduce((sum, trial) => sum + (trial.tokens ?? 0), 0) },
      cases,
      pack: packStatistics(cases, trials, parts.plan.control),
      trials,
    };
  },

  /** Whether parsed JSON claims to be a live report (by its `schema`), for commands that take either kind. */
  isLive(value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { schema?: unknown }).schema === LIVE_REPORT_SCHEMA;
  },

  /**
   * Parses and validates a live report: the JSON Schema, then what it cannot say — unknown or duplicate
   * trials, outcomes that do not fit the case's purpose, figures that do not follow from the trials.
   * @throws LiveReportError listing every problem
   */
  parse(text: string): LiveReport {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new LiveReportError(['not JSON']);
    }
    compiled ??= new ajvModule.default({ allErrors: true, strict: true, allowUnionTypes: true }).compile(
      JSON.parse(readFileSync(LIVE_REPORT_SCHEMA_FILE, 'utf8')) as Record<string, unknown>,
    );
    if (!compiled(value)) throw new LiveReportError((compiled.errors ?? []).map(describe));
    const report = value as LiveReport;
    const problems = consistencyProblems(report);
    if (problems.length > 0) throw new LiveReportError(problems);
    return report;
  },

  toJson(report: LiveReport): string {
    return `${JSON.stringify(report, null, 2)}\n`;
  },
};

function consistencyProblems(report: LiveReport): string[] {
  const problems: string[] = [];
  const cases = new Map(report.cases.map((c) => [c.id, c]));
  if (cases.size !== report.cases.length) problems.push('duplicate case ids');
  const keys = new Set<string>();
  for (const trial of report.trials) {
    const where = `trial ${trial.case}#${trial.index} (${trial.arm})`;
    const owner = cases.get(trial.case);
    if (owner === undefined) problems.push(`${where}: no such case`);
    if (trial.index >= report.plan.trialsPerCase) problems.push(`${where}: index beyond trialsPerCase`);
    if (trial.arm === LiveArm.Unguarded && !report.plan.control)
      problems.push(`${where}: control arm without plan.control`);
    const key = `${trial.case}\u0000${trial.arm}\u0000${trial.index}`;
    if (keys.has(key)) problems.push(`${where}: recorded twice`);
    keys.add(key);
    const attackOutcomes: string[] = [TrialOutcome.Breach, TrialOutcome.Contained, TrialOutcome.NotExercised];
    const utilityOutcomes: string[] = [TrialOutcome.UtilitySuccess, TrialOutcome.UtilityFailure];
    if (owner?.purpose === 'attack' && utilityOutcomes.includes(trial.outcome))
      problems.push(`${where}: a utility outcome on an attack case`);
    if (owner?.purpose === 'utility' && attackOutcomes.includes(trial.outcome))
      problems.push(`${where}: an attack outcome on a utility case`);
  }
  if (problems.length > 0) return problems;
  const rebuilt = LiveReport.build({ ...report, budget: report.budget, cases: report.cases.map(metaOf) });
  for (const [field, label] of [
    ['cases', 'the case figures'],
    ['pack', 'the pack figures'],
    ['complete', 'complete'],
    ['stoppedBy', 'stoppedBy (a complete run stopped for nothing)'],
    ['budget', 'budget.tokensUsed'],
  ] as const)
    if (JSON.stringify(rebuilt[field]) !== JSON.stringify(report[field]))
      problems.push(`${label} do not follow from the trials`);
  return problems;
}

function metaOf({ id, version, purpose, attackedTool, promptFingerprint }: LiveCaseStatistics): LiveCaseMeta {
  return { id, version, purpose, attackedTool, promptFingerprint };
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}
