import { Trust } from '../../context-release/trust.js';
import { VerdictConfigurationError } from '../../errors/configuration.error.js';
import type { Envelope } from '../../vocabulary/envelope.js';
import { type ArgumentCandidate, argumentLeaves, candidateFingerprint } from '../argument-candidates.js';
import { occursIn } from '../candidate-occurrence.js';
import type { InfluenceReport } from '../influence-report.js';
import type { ProvenanceWindow } from '../provenance-window.js';
import { taintTenantKey } from './taint-tenant-key.js';
import { DEFAULT_TAINT_RETENTION_DAYS, type TaintOptions } from './taint-options.js';

const DAY_MS = 86_400_000;

/** What the taint gate needs from the provenance stage. */
export interface TaintGateInput {
  readonly envelope: Envelope;
  readonly options: { readonly taint?: TaintOptions } | undefined;
  readonly window: ProvenanceWindow;
  /** The application's own request (no window, not an agent's tool call): nothing is looked up or recorded. */
  readonly ownRequest: boolean;
  readonly now: Date;
  /** A dry run looks values up but records none. */
  readonly dryRun: boolean;
}

/**
 * Influence analysis with the taint ledger (docs/provenance.md, "Taint that survives writes"): looks the
 * proposal's candidate values up in one statement, runs `analyze` with the tainted ones (influenced wherever
 * they came back from, never derived from trusted content), and — when the proposal was under untrusted
 * influence (an untrusted or unobserved window, or a tainted value) and this is not a dry run — records the
 * candidates not derived from trusted content, so that they stay tainted when a result echoes them.
 */
export async function analyzeWithTaint(
  input: TaintGateInput,
  analyze: (tainted: ReadonlySet<string>) => Promise<InfluenceReport>,
): Promise<InfluenceReport> {
  const taint = input.options?.taint;
  if (taint === undefined || input.ownRequest) return analyze(new Set());
  const leaves = argumentLeaves(input.envelope.arguments);
  const needles = new Map(
    leaves.flatMap((leaf) => leaf.candidates).map((candidate) => [candidateFingerprint(candidate), candidate.needle]),
  );
  const tenant = taintTenantKey(input.envelope.context.tenant);
  const hits =
    needles.size === 0 ? new Set<string>() : await taint.ledger.tainted(tenant, [...needles.keys()], input.now);
  const tainted = new Set([...hits].flatMap((hit) => needles.get(hit) ?? []));
  const report = await analyze(tainted);
  if (!input.dryRun && (input.window.untrusted || tainted.size > 0)) {
    // `derivation` is in leaf order: the positive rule's answer, trusted set included, for each whole value.
    const underived = leaves.filter((_, i) => report.derivation[i]?.derived !== true);
    const trusted = trustedContentOf(input.window);
    const recorded = underived
      .flatMap((leaf) => leaf.candidates)
      .filter((candidate) => tainted.has(candidate.needle) || !occursInAny(trusted, candidate))
      .map(candidateFingerprint);
    if (recorded.length > 0) await taint.ledger.record(tenant, [...new Set(recorded)], expiryOf(input.now, taint));
  }
  return report;
}

/** The canonical texts of the window's trusted items that never entered it untrusted (none when unobserved). */
function trustedContentOf(window: ProvenanceWindow): readonly string[] {
  if (!window.observed) return [];
  const untrusted = new Set(
    window.items.filter((item) => item.label.trust === Trust.Untrusted).map((item) => item.label.fingerprint),
  );
  return window.items
    .filter((item) => item.label.trust !== Trust.Untrusted && !untrusted.has(item.label.fingerprint))
    .map((item) => item.canonical);
}

function occursInAny(texts: readonly string[], candidate: ArgumentCandidate): boolean {
  return texts.some((text) => occursIn(text, candidate));
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
