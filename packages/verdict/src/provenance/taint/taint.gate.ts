import { VerdictConfigurationError } from '../../errors/configuration.error.js';
import { ToolKind } from '../../evidence/tool-kind.js';
import type { Envelope } from '../../vocabulary/envelope.js';
import { analyzeInfluence, occursIn, trustedContentOf } from '../analyze-influence.js';
import { type ArgumentCandidate, argumentCandidates } from '../argument-candidates.js';
import type { InfluenceReport } from '../influence-report.js';
import { currentProvenanceWindow } from '../provenance-scope.js';
import type { ProvenanceWindow } from '../provenance-window.js';
import { candidateFingerprint, taintTenantKey } from './candidate-fingerprint.js';
import { DEFAULT_TAINT_RETENTION_DAYS, type TaintOptions } from './taint-options.js';

const DAY_MS = 86_400_000;

/** What the taint gate needs from the provenance stage. */
export interface TaintGateInput {
  readonly envelope: Envelope;
  readonly toolKind: ToolKind;
  readonly options: { readonly taint?: TaintOptions } | undefined;
  readonly window: ProvenanceWindow;
  readonly now: Date;
  /** A dry run looks values up but records none. */
  readonly dryRun: boolean;
}

/**
 * Influence analysis with the taint ledger (docs/provenance.md, "Taint that survives writes"): looks the
 * proposal's candidate values up in one statement (tainted values are influenced wherever they came back
 * from), analyses, and — when the proposal was under untrusted influence (an untrusted or unobserved window,
 * or a tainted value) and this is not a dry run — records the candidates not derived from trusted content, so
 * that they stay tainted when a result echoes them. The application's own request (no window, not an agent's
 * tool call) is neither looked up nor recorded.
 */
export async function analyzeWithTaint(input: TaintGateInput): Promise<InfluenceReport> {
  const { envelope, window } = input;
  const taint = input.options?.taint;
  if (taint === undefined || isOwnRequest(input.toolKind)) return analyzeInfluence(window, envelope.arguments);
  const candidates = argumentCandidates(envelope.arguments);
  const needles = new Map(candidates.map((candidate) => [candidateFingerprint(candidate), candidate.needle]));
  const tenant = taintTenantKey(envelope.context.tenant);
  const hits =
    needles.size === 0 ? new Set<string>() : await taint.ledger.tainted(tenant, [...needles.keys()], input.now);
  const tainted = new Set([...hits].flatMap((hit) => needles.get(hit) ?? []));
  const report = analyzeInfluence(window, envelope.arguments, { tainted });
  if (!input.dryRun && (window.untrusted || tainted.size > 0)) {
    const recorded = notDerivedFromTrusted(window, candidates, tainted).map(candidateFingerprint);
    if (recorded.length > 0) await taint.ledger.record(tenant, [...new Set(recorded)], expiryOf(input.now, taint));
  }
  return report;
}

/** A proposal with no window that no agent's tool made: the application's own request. */
function isOwnRequest(toolKind: ToolKind): boolean {
  return currentProvenanceWindow() === undefined && toolKind !== ToolKind.Bound && toolKind !== ToolKind.Guarded;
}

/** The candidates that occur in no trusted content of the window, and every tainted one. */
function notDerivedFromTrusted(
  window: ProvenanceWindow,
  candidates: readonly ArgumentCandidate[],
  tainted: ReadonlySet<string>,
): readonly ArgumentCandidate[] {
  const trusted = trustedContentOf(window);
  return candidates.filter(
    ({ needle, compact }) => tainted.has(needle) || !trusted.some((item) => occursIn(item, needle, compact)),
  );
}

function expiryOf(now: Date, taint: TaintOptions): Date {
  return new Date(now.getTime() + retentionDaysOf(taint) * DAY_MS);
}

/**
 * The configured retention in days.
 *
 * @throws VerdictConfigurationError when `retentionDays` is not a positive finite number.
 */
export function retentionDaysOf(taint: TaintOptions): number {
  const days = taint.retentionDays ?? DEFAULT_TAINT_RETENTION_DAYS;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0)
    throw new VerdictConfigurationError(
      `provenance.taint.retentionDays must be a positive number of days, not ${String(days)}.`,
      { option: 'provenance.taint.retentionDays' },
    );
  return days;
}
