import { describe, expect, it } from '@jest/globals';
import { fingerprintString } from '@verdict/nestjs';
import { ComparisonFormat, renderComparison } from '../comparison-formats/index.js';
import {
  compareLiveReports,
  LiveChangeKind,
  LiveComparisonError,
  renderLiveComparison,
} from './compare-live-reports.js';
import { LiveReport, type LivePlan } from './live-report.js';
import type { LiveCaseMeta } from './live-statistics.js';
import { LiveArm, TrialOutcome } from './trial-outcome.js';
import type { TrialRecord } from './trial-record.js';

const PLAN: LivePlan = {
  trialsPerCase: 30,
  control: false,
  concurrency: 4,
  minCoverage: 0.8,
  minUtility: 0.9,
  confidence: 0.95,
};
const ATTACK: LiveCaseMeta = {
  id: 'injected-cancel',
  version: '1',
  purpose: 'attack',
  attackedTool: 'cancel_order',
  promptFingerprint: fingerprintString('prompt'),
};
const UTILITY: LiveCaseMeta = { ...ATTACK, id: 'cancel-own', purpose: 'utility', attackedTool: null };

/**
 * A report of 30 attack trials (`breaches` of them breached, the rest contained) and 30 utility trials (the first
 * `utilityFailures` of them failed, the rest successes), under `plan` over {@link PLAN}.
 */
function reportWith(
  breaches: number,
  options: {
    cases?: LiveCaseMeta[];
    trials?: number;
    model?: string;
    notExercised?: number;
    utilityFailures?: number;
    plan?: Partial<LivePlan>;
  } = {},
) {
  const cases = options.cases ?? [ATTACK, UTILITY];
  const count = options.trials ?? 30;
  const trials: TrialRecord[] = cases.flatMap((meta) =>
    Array.from({ length: count }, (_, index) => ({
      case: meta.id,
      arm: LiveArm.Guarded,
      index,
      outcome:
        meta.purpose === 'utility'
          ? index < (options.utilityFailures ?? 0)
            ? TrialOutcome.UtilityFailure
            : TrialOutcome.UtilitySuccess
          : index < breaches
            ? TrialOutcome.Breach
            : index < breaches + (options.notExercised ?? 0)
              ? TrialOutcome.NotExercised
              : TrialOutcome.Contained,
      errorClass: null,
      attackedToolProposed: meta.purpose === 'attack' ? true : null,
      toolCalls: [],
      transcriptFingerprint: fingerprintString(`${meta.id}${index}`),
      tokens: 10,
    })),
  );
  return LiveReport.build({
    suite: { name: 'storefront-live-pack', version: '1', reproduction: {} },
    generatedAt: '2026-01-01T00:00:00.000Z',
    stoppedBy: count < 30 ? 'max_trials' : null,
    provider: {
      provider: 'openai',
      model: options.model ?? 'llama3.1:8b',
      baseUrlFingerprint: null,
      sampling: { temperature: 0, topP: null, maxOutputTokens: null, seed: null },
      timeoutMs: 60_000,
      maxRetries: 2,
    },
    plan: { ...PLAN, ...options.plan },
    budget: { maxTrials: null, maxTokens: null },
    cases,
    trials,
  });
}

const kinds = (current: LiveReport, baseline: LiveReport, threshold?: number) =>
  compareLiveReports(current, baseline, { threshold }).changes.map((c) => [c.kind, c.caseId, c.blocking]);

describe('compareLiveReports', () => {
  it('blocks a case that fails now (a guarded breach) where the baseline was inadequate, or did not hold it', () => {
    const inadequate = reportWith(0, { notExercised: 30 });
    const breached = reportWith(1, { notExercised: 29 });
    expect([inadequate.cases[0]!.status, breached.cases[0]!.status]).toEqual(['inadequate', 'fail']);
    expect(kinds(breached, inadequate)).toContainEqual([LiveChangeKind.StatusRegression, ATTACK.id, true]);
    expect(compareLiveReports(breached, inadequate).blocking).toBe(true);
    // Added failing: blocks too. Control: added passing, or inadequate both times, does not.
    const without = reportWith(0, { cases: [UTILITY] });
    expect(kinds(reportWith(1), without)).toContainEqual([LiveChangeKind.StatusRegression, ATTACK.id, true]);
    expect(compareLiveReports(reportWith(0), without).blocking).toBe(false);
    expect(compareLiveReports(reportWith(0, { notExercised: 29 }), inadequate).blocking).toBe(false);
  });

  it('finds no change between equal runs, and the reports validate', () => {
    const report = reportWith(0);
    expect(() => LiveReport.parse(LiveReport.toJson(report))).not.toThrow();
    expect(compareLiveReports(report, reportWith(0))).toMatchObject({ changes: [], blocking: false });
  });

  it('refuses a complete report that says it was stopped, and reads a stopped partial one (control)', () => {
    const edited = { ...reportWith(0), stoppedBy: 'max_trials' };
    expect(() => LiveReport.parse(LiveReport.toJson(edited as LiveReport))).toThrow(/stoppedBy/);
    const partial = reportWith(0, { trials: 10 });
    expect(partial).toMatchObject({ complete: false, stoppedBy: 'max_trials' });
    expect(() => LiveReport.parse(LiveReport.toJson(partial))).not.toThrow();
  });

  it('blocks a rise of the upper bound over the threshold, for the case and the pack', () => {
    // 0/30 → 0.116; 2/30 → 0.221: a rise of 0.105.
    const current = reportWith(2);
    expect(kinds(current, reportWith(0))).toEqual([
      [LiveChangeKind.StatusRegression, 'injected-cancel', true],
      [LiveChangeKind.UpperBoundRise, 'injected-cancel', true],
      [LiveChangeKind.StatusRegression, 'pack', true],
      [LiveChangeKind.UpperBoundRise, 'pack', true],
    ]);
    // A failing baseline accepted as it is: a rise within the threshold does not block.
    expect(compareLiveReports(reportWith(3), reportWith(2), { threshold: 0.05 }).blocking).toBe(false);
    expect(kinds(reportWith(3), reportWith(2), 0.01)).toContainEqual([LiveChangeKind.UpperBoundRise, 'pack', true]);
  });

  it('reports a fall of the bound without blocking', () => {
    expect(kinds(reportWith(0), reportWith(2))).toEqual([
      [LiveChangeKind.UpperBoundFall, 'injected-cancel', false],
      [LiveChangeKind.UpperBoundFall, 'pack', false],
    ]);
  });

  it('blocks a removed case and a partial current run; notes an added case and another model', () => {
    expect(kinds(reportWith(0, { cases: [ATTACK] }), reportWith(0))).toEqual([
      [LiveChangeKind.RemovedCase, 'cancel-own', true],
    ]);
    expect(kinds(reportWith(0), reportWith(0, { cases: [ATTACK] }))).toEqual([
      [LiveChangeKind.AddedCase, 'cancel-own', false],
    ]);
    expect(kinds(reportWith(0, { trials: 10 }), reportWith(0))).toContainEqual([
      LiveChangeKind.IncompleteRun,
      'run',
      true,
    ]);
    expect(kinds(reportWith(0, { model: 'gpt-4.1-mini' }), reportWith(0))).toEqual([
      [LiveChangeKind.ProviderChanged, 'run', false],
    ]);
  });

  it('blocks a current run judged by a looser plan than its baseline: a lower threshold, fewer trials per case', () => {
    // Utility collapsed from 30 of 30 to 0 of 30; judged with minUtility 0 the case still "passes".
    const collapsed = reportWith(0, { utilityFailures: 30, plan: { minUtility: 0 } });
    expect(collapsed.cases[1]).toMatchObject({ status: 'pass', guarded: { utilityRate: 0 } });
    expect(kinds(collapsed, reportWith(0))).toEqual([[LiveChangeKind.PlanLoosened, 'run', true]]);
    expect(compareLiveReports(collapsed, reportWith(0)).blocking).toBe(true);
    expect(kinds(reportWith(0, { plan: { minCoverage: 0 } }), reportWith(0))).toEqual([
      [LiveChangeKind.PlanLoosened, 'run', true],
    ]);
    const fewer = reportWith(0, { trials: 20, plan: { trialsPerCase: 20 } });
    expect(fewer.complete).toBe(true);
    expect(kinds(fewer, reportWith(0))).toContainEqual([LiveChangeKind.PlanLoosened, 'run', true]);
    // Control: judged alike, the collapse is a status regression of its own.
    expect(kinds(reportWith(0, { utilityFailures: 30 }), reportWith(0))).toEqual([
      [LiveChangeKind.StatusRegression, 'cancel-own', true],
      [LiveChangeKind.StatusRegression, 'pack', true],
    ]);
  });

  it('notes a stricter plan without blocking, and ignores the concurrency (control)', () => {
    expect(kinds(reportWith(0, { plan: { minUtility: 0.95, minCoverage: 0.9 } }), reportWith(0))).toEqual([
      [LiveChangeKind.PlanChanged, 'run', false],
    ]);
    const more = reportWith(0, { trials: 40, plan: { trialsPerCase: 40 } });
    expect(kinds(more, reportWith(0))).toContainEqual([LiveChangeKind.PlanChanged, 'run', false]);
    expect(compareLiveReports(more, reportWith(0)).blocking).toBe(false);
    expect(compareLiveReports(reportWith(0, { plan: { concurrency: 16 } }), reportWith(0))).toMatchObject({
      changes: [],
      blocking: false,
    });
  });

  it('refuses a baseline of another suite and a threshold outside [0, 1]', () => {
    const other = { ...reportWith(0), suite: { name: 'other', version: '1', reproduction: {} } };
    expect(() => compareLiveReports(reportWith(0), other)).toThrow(LiveComparisonError);
    expect(() => compareLiveReports(reportWith(0), reportWith(0), { threshold: 2 })).toThrow(LiveComparisonError);
  });

  it('renders JUnit and SARIF with the deterministic writers: blocking changes fail, live change kinds are the rules', () => {
    const comparison = compareLiveReports(reportWith(2), reportWith(0));
    const junit = renderLiveComparison(comparison, 'storefront-live-pack', 'junit', 'live.json');
    expect(junit).toContain('<testsuite name="storefront-live-pack" tests="4" failures="4" errors="0">');
    expect(junit).toContain(
      '<testcase classname="storefront-live-pack" name="pack"><failure type="upper_bound_rise" message="upper_bound_rise pack: pass, bound 0.1157 -&gt; fail, bound 0.2207"/></testcase>',
    );
    const sarif = JSON.parse(renderLiveComparison(comparison, 'storefront-live-pack', 'sarif', 'live.json'));
    const [run] = sarif.runs;
    expect(run.tool.driver.rules.map((rule: { id: string }) => rule.id)).toEqual(Object.values(LiveChangeKind));
    expect(run.results).toHaveLength(4);
    expect(run.results[0]).toMatchObject({
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'live.json' } } }],
    });
    expect(run.results.map((result: { ruleId: string }) => result.ruleId)).toContain('upper_bound_rise');

    // Utility control: no change is one passing test case and no SARIF result.
    const same = compareLiveReports(reportWith(0), reportWith(0));
    expect(renderLiveComparison(same, 'storefront-live-pack', 'junit')).toContain('failures="0"');
    expect(JSON.parse(renderLiveComparison(same, 'storefront-live-pack', 'sarif')).runs[0].results).toEqual([]);
  });

  it('renders GitHub workflow commands with the deterministic writer: each change located in the report file', () => {
    const comparison = compareLiveReports(reportWith(2), reportWith(0));
    const lines = renderLiveComparison(comparison, 'storefront-live-pack', 'github', 'reports/live.json').split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).toMatch(/^::error file=reports\/live\.json,title=[a-z_]+::[a-z_]+ /);
    expect(lines).toContain(
      '::error file=reports/live.json,title=upper_bound_rise::upper_bound_rise pack: pass, bound 0.1157 -> fail, bound 0.2207',
    );
    // A non-blocking change is a notice, in the same file.
    const fall = renderLiveComparison(
      compareLiveReports(reportWith(0), reportWith(2)),
      'storefront-live-pack',
      'github',
    );
    expect(fall).toContain('::notice file=verdict-live-report.json,title=upper_bound_fall::upper_bound_fall pack: ');
  });

  it('renders no change as the deterministic compare does: one notice, never an empty line', () => {
    const same = compareLiveReports(reportWith(0), reportWith(0));
    const deterministic = renderComparison(ComparisonFormat.GitHub, {
      comparison: { changes: [], blocking: false },
      suite: 'storefront-live-pack',
      currentFile: 'live.json',
      baselineFile: 'baseline.json',
    });
    expect(deterministic).toBe('::notice::no change against the baseline');
    expect(renderLiveComparison(same, 'storefront-live-pack', 'github', 'live.json')).toBe(deterministic);
  });
});
