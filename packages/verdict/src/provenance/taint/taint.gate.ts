import { VerdictConfigurationError } from '../../errors/configuration.error.js';
import type { Envelope } from '../../vocabulary/envelope.js';
import { inTrustedContent } from '../analyze-influence.js';
import { argumentLeaves, candidateFingerprint } from '../argument-candidates.js';
import type { InfluenceReport } from '../influence-report.js';
import type { ProvenanceWindow } from '../provenance-window.js';
import { taintTenantKey } from './taint-tenant-key.js';
import { DEFAULT_TAINT_RETENTION_DAYS, type TaintOptions } from './taint-options.js';
import { MAX_WINDOW_SECONDS } from '../../rate-limits/fixed-window.js';

const DAY_MS = 86_400_000;

/**
 * The longest retention: 36,525 days, {@link MAX_WINDOW_SECONDS} (100 years) as every other expiry, so an expiry stays
 * a time every engine stores (past it, `new Date` is Invalid Date, which a ledger reads as expired or cannot write).
 */
export const MAX_TAINT_RETENTION_DAYS = MAX_WINDOW_SECONDS / 86_400;

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
  /** The record keys a plan check reads (docs/quarantine.md, "Plans"): looked up as values are; not recorded. */
  readonly keys?: readonly string[];
}

/**
 * Influence analysis with the taint ledger (docs/provenance.md, "Taint that survives writes"): looks the
 * proposal's candidate values (and the record keys a plan check reads) up in one statement, runs `analyze` with the
 * tainted ones (influenced wherever they came back from, never derived from trusted content), and — when the proposal
 * was under untrusted influence (an untrusted or unobserved window, or a tainted value) and this is not a dry run —
 * records the candidate values (`values` of what `analyze` answers) not derived from trusted content, so that they
 * stay tainted when a result echoes them. "Derived" is the positive rule's own test (`inTrustedContent`): a value a
 * model's answer or a text Verdict wrote holds, a look-alike of what the user typed, or a value a sub-agent's task
 * holds that its caller's window does not vouch for, is recorded.
 */
export async function analyzeWithTaint<T extends { readonly values: InfluenceReport }>(
  input: TaintGateInput,
  analyze: (tainted: ReadonlySet<string>) => Promise<T>,
): Promise<T> {
  const taint = input.options?.taint;
  if (taint === undefined || input.ownRequest) return analyze(new Set());
  const leaves = argumentLeaves(input.envelope.arguments);
  const keys = argumentLeaves(input.keys ?? []);
  const needles = new Map(
    [...leaves, ...keys]
      .flatMap((leaf) => leaf.candidates)
      .map((candidate) => [candidateFingerprint(candidate), candidate.needle]),
  );
  const tenant = taintTenantKey(input.envelope.context.tenant);
  const hits =
    needles.size === 0 ? new Set<string>() : await taint.ledger.tainted(tenant, [...needles.keys()], input.now);
  const tainted = new Set([...hits].flatMap((hit) => needles.get(hit) ?? []));
  const analysed = await analyze(tainted);
  if (!input.dryRun && (input.window.untrusted || tainted.size > 0)) {
    // `derivation` is in leaf order: the positive rule's answer, trusted set included, for each whole value.
    const underived = leaves.filter((_, i) => analysed.values.derivation[i]?.derived !== true);
    // Of those, each candidate the positive rule's own test does not derive from the window's trusted content.
    const derived = inTrustedContent(input.window);
    const recorded = underived
      .flatMap((leaf) => leaf.candidates)
      .filter((candidate) => tainted.has(candidate.needle) || !derived(candidate))
      .map(candidateFingerprint);
    if (recorded.length > 0) await taint.ledger.record(tenant, [...new Set(recorded)], expiryOf(input.now, taint));
  }
  return analysed;
}

function expiryOf(now: Date, taint: TaintOptions): Date {
  return new Date(now.getTime() + retentionDaysOf(taint) * DAY_MS);
}

/**
 * The configured retention in days.
 *
 * @throws VerdictConfigurationError when `retentionDays` is not a positive number of at most
 *   {@link MAX_TAINT_RETENTION_DAYS}.
 */
export function retentionDaysOf(taint: TaintOptions): number {
  // Only a left-out `retentionDays` is the default: a `null` is refused, not read as 90 days.
  const days: unknown = taint.retentionDays === undefined ? DEFAULT_TAINT_RETENTION_DAYS : taint.retentionDays;
  if (typeof days !== 'number' || !(days > 0 && days <= MAX_TAINT_RETENTION_DAYS))
    throw new VerdictConfigurationError(
      `provenance.taint.retentionDays must be a positive number of days, at most 36,525 (100 years), not ${String(days)}.`,
      { option: 'provenance.taint.retentionDays' },
    );
  return days;
}
