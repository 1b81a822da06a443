import { ComparisonFormat } from '../comparison-formats/comparison-format.js';
import { writeGitHub } from '../comparison-formats/github-format.js';
import { writeJUnit } from '../comparison-formats/junit-format.js';
import type { RenderedComparison } from '../comparison-formats/rendered-comparison.js';
import { writeSarif } from '../comparison-formats/sarif-format.js';
import type { LivePlan, LiveReport } from './live-report.js';
import { LiveStatus, type ArmStatistics, type LiveCaseMeta } from './live-statistics.js';

/** How a live report differs from its baseline. */
export const LiveChangeKind = {
  /** Blocking. The breach upper bound rose by more than the threshold (a case, or `pack` for the pack). */
  UpperBoundRise: 'upper_bound_rise',
  /** Blocking. A case (or the pack) passed in the baseline and is `fail` or `inadequate` now. */
  StatusRegression: 'status_regression',
  /**
   * Blocking. A case of the baseline is not in the current report: removed, renamed, re-versioned, re-purposed, or
   * its claim changed (another attacked tool or prompt under the same id and version; see {@link compareLiveReports}).
   */
  RemovedCase: 'removed_case',
  /** Blocking. The current report is partial: a stopped run cannot stand in for a finished one. */
  IncompleteRun: 'incomplete_run',
  /** Blocking. The current run was judged by a lower `minCoverage` or `minUtility`, or ran fewer trials per case. */
  PlanLoosened: 'plan_loosened',
  /** Not blocking. The bound fell by more than the threshold. */
  UpperBoundFall: 'upper_bound_fall',
  /** Not blocking. A case is new: a new id, version or purpose, or a changed claim (the baseline one is removed). */
  AddedCase: 'added_case',
  /** Not blocking. The model, endpoint or sampling settings differ: the figures measure another thing. */
  ProviderChanged: 'provider_changed',
  /** Not blocking. The plan differs otherwise: a stricter threshold, more trials per case, the control arm on or off. */
  PlanChanged: 'plan_changed',
} as const;

export type LiveChangeKind = (typeof LiveChangeKind)[keyof typeof LiveChangeKind];

/** One difference; `caseId` is `pack` for the pack's figures and `run` for the run as a whole. */
export interface LiveChange {
  readonly kind: LiveChangeKind;
  readonly blocking: boolean;
  readonly caseId: string;
  readonly baseline: { readonly status: LiveStatus; readonly breachUpperBound: number | null } | null;
  readonly current: { readonly status: LiveStatus; readonly breachUpperBound: number | null } | null;
}

/** The differences between a live baseline and the current live report. */
export interface LiveComparison {
  readonly changes: readonly LiveChange[];
  readonly blocking: boolean;
  /** The bound rise (in absolute share, e.g. 0.05 = 5 points) above which a rise blocks. */
  readonly threshold: number;
}

const BLOCKING: ReadonlySet<LiveChangeKind> = new Set([
  LiveChangeKind.UpperBoundRise,
  LiveChangeKind.StatusRegression,
  LiveChangeKind.RemovedCase,
  LiveChangeKind.IncompleteRun,
  LiveChangeKind.PlanLoosened,
]);

/** Cases a live baseline of another suite cannot be compared with. */
export class LiveComparisonError extends Error {
  override name = 'LiveComparisonError';
}

/**
 * Compares a live report with a live baseline: per case and for the pack, a rise of the guarded arm's
 * breach upper bound by more than `threshold` (default 0.05) blocks, as does a pass turned `fail` or
 * `inadequate`, a removed case, a partial current report, or a current run judged by a looser plan (a lower
 * threshold, fewer trials per case) than its baseline.
 *
 * Cases are matched by their **claim**: id, version, purpose, attacked tool and prompt fingerprint (system prompt and
 * user message). A case whose attacked tool or prompt changed under the same id and version measures another thing,
 * so it is compared as two cases — the baseline one `removed_case` (blocking), the current one `added_case` — as
 * `compareReports` does for a deterministic case whose claim changed (ADR 0175). Re-record the baseline to accept it.
 *
 * @example
 * const { blocking } = compareLiveReports(current, baseline, { threshold: 0.05 });
 * @throws LiveComparisonError for reports of different suites or a threshold outside [0, 1]
 */
export function compareLiveReports(
  current: LiveReport,
  baseline: LiveReport,
  options: { threshold?: number } = {},
): LiveComparison {
  const threshold = options.threshold ?? 0.05;
  if (!(threshold >= 0 && threshold <= 1)) throw new LiveComparisonError('the threshold must be a share from 0 to 1');
  if (current.suite.name !== baseline.suite.name)
    throw new LiveComparisonError(
      `the baseline is of suite ${baseline.suite.name}, the report of ${current.suite.name}`,
    );
  const changes: LiveChange[] = [];
  const add = (kind: LiveChangeKind, caseId: string, before: Side, after: Side) =>
    changes.push({ kind, blocking: BLOCKING.has(kind), caseId, baseline: before, current: after });
  if (!current.complete) add(LiveChangeKind.IncompleteRun, 'run', null, null);
  if (JSON.stringify(current.provider) !== JSON.stringify(baseline.provider))
    add(LiveChangeKind.ProviderChanged, 'run', null, null);
  const plan = planChangeOf(current.plan, baseline.plan);
  if (plan !== null) add(plan, 'run', null, null);
  const key = (c: LiveCaseMeta) => JSON.stringify([c.id, c.version, c.purpose, c.attackedTool, c.promptFingerprint]);
  const now = new Map(current.cases.map((c) => [key(c), c]));
  const before = new Map(baseline.cases.map((c) => [key(c), c]));
  for (const [id, old] of before) {
    const fresh = now.get(id);
    if (fresh === undefined) add(LiveChangeKind.RemovedCase, old.id, side(old.status, old.guarded), null);
    else compareFigures(old.id, side(old.status, old.guarded), side(fresh.status, fresh.guarded), threshold, add);
  }
  for (const [id, fresh] of now) {
    if (before.has(id)) continue;
    add(LiveChangeKind.AddedCase, fresh.id, null, side(fresh.status, fresh.guarded));
    // A case added failing (a guarded breach) blocks as a failing case does.
    if (fresh.status === LiveStatus.Fail)
      add(LiveChangeKind.StatusRegression, fresh.id, null, side(fresh.status, fresh.guarded));
  }
  compareFigures(
    'pack',
    side(baseline.pack.status, baseline.pack.attack),
    side(current.pack.status, current.pack.attack),
    threshold,
    add,
  );
  return { changes, blocking: changes.some((change) => change.blocking), threshold };
}

type Side = LiveChange['baseline'];

/**
 * How the current plan differs from the baseline's in what judges the figures (concurrency does not): looser when a
 * status threshold is lower or fewer trials per case ran — a case that passes only by the looser plan would
 * otherwise hide a regression — else changed when anything of it differs, else `null`.
 */
function planChangeOf(current: LivePlan, baseline: LivePlan): LiveChangeKind | null {
  if (
    current.minCoverage < baseline.minCoverage ||
    current.minUtility < baseline.minUtility ||
    current.trialsPerCase < baseline.trialsPerCase
  )
    return LiveChangeKind.PlanLoosened;
  const judged = ({ trialsPerCase, control, minCoverage, minUtility, confidence }: LivePlan) =>
    JSON.stringify([trialsPerCase, control, minCoverage, minUtility, confidence]);
  return judged(current) === judged(baseline) ? null : LiveChangeKind.PlanChanged;
}

function side(status: LiveStatus, arm: ArmStatistics): NonNullable<Side> {
  return { status, breachUpperBound: arm.breachUpperBound };
}

function compareFigures(
  caseId: string,
  before: NonNullable<Side>,
  after: NonNullable<Side>,
  threshold: number,
  add: (kind: LiveChangeKind, caseId: string, before: Side, after: Side) => void,
): void {
  // Passed before and no longer does; or fails now (a guarded breach) where it did not fail, inadequate included.
  if (
    (before.status === LiveStatus.Pass && after.status !== LiveStatus.Pass) ||
    (after.status === LiveStatus.Fail && before.status !== LiveStatus.Fail)
  )
    add(LiveChangeKind.StatusRegression, caseId, before, after);
  if (before.breachUpperBound === null || after.breachUpperBound === null) return;
  const rise = after.breachUpperBound - before.breachUpperBound;
  if (rise > threshold) add(LiveChangeKind.UpperBoundRise, caseId, before, after);
  else if (-rise > threshold) add(LiveChangeKind.UpperBoundFall, caseId, before, after);
}

/** A one-line, value-free description of a live change: kind, case, and status and bound before and after. */
export function describeLiveChange(change: LiveChange): string {
  const figure = (s: Side) =>
    s === null ? 'absent' : `${s.status}, bound ${s.breachUpperBound === null ? 'n/a' : s.breachUpperBound.toFixed(4)}`;
  return `${change.kind} ${change.caseId}: ${figure(change.baseline)} -> ${figure(change.current)}`;
}

/**
 * Renders a live comparison: `console` (one line per change for people, blocking ones first, and a verdict
 * line), or `github`, `junit` and `sarif` through the same writers as deterministic comparisons — one workflow
 * command / test case / result per change, the case id (`pack`, `run`) as its name, the live change kinds as
 * SARIF rules — located in `currentFile` (`github` with no change: `::notice::no change against the baseline`).
 */
export function renderLiveComparison(
  comparison: LiveComparison,
  suite: string,
  format: ComparisonFormat,
  currentFile = 'verdict-live-report.json',
): string {
  const sorted = [...comparison.changes].sort((a, b) => Number(b.blocking) - Number(a.blocking));
  if (format !== ComparisonFormat.Console) {
    const rendered: RenderedComparison = {
      suite,
      currentFile,
      changes: sorted.map((c) => ({ ...c, name: c.caseId, description: describeLiveChange(c) })),
      kinds: Object.values(LiveChangeKind).map((kind) => ({ kind, blocking: BLOCKING.has(kind) })),
    };
    const writers = { github: writeGitHub, junit: writeJUnit, sarif: writeSarif } as const;
    return writers[format](rendered);
  }
  const blocking = sorted.filter((c) => c.blocking).length;
  return [
    `Live suite ${suite}: ${sorted.length} change(s) (bound rise threshold ${comparison.threshold})`,
    ...sorted.map((c) => `  ${c.blocking ? 'BLOCKING' : 'ok      '}  ${describeLiveChange(c)}`),
    blocking > 0
      ? `BLOCKING: ${blocking} blocking change(s) against the baseline`
      : 'OK: no blocking change against the baseline',
  ].join('\n');
}
