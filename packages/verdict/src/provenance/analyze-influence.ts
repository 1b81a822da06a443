import { Trust } from '../context-release/trust.js';
import {
  type ArgumentCandidate,
  type ArgumentLeaf,
  argumentLeaves,
  candidateFingerprint,
} from './argument-candidates.js';
import { canonicalForm } from './canonical-form.js';
import { occursIn } from './candidate-occurrence.js';
import { compactOccurrences } from './compact-occurrence.js';
import type { ArgumentDerivation, ArgumentInfluence, InfluenceReport } from './influence-report.js';
import type { InfluenceOptions } from './influence-options.js';
import type { ProvenanceLabel } from './provenance-label.js';
import { TAINT_LEDGER_SOURCE } from './provenance-source.js';
import type { ProvenanceWindow } from './provenance-window.js';

/**
 * Influence analysis of one proposal (step 1a), in canonical form (`canonicalForm`) on both sides:
 * - whether untrusted (or unobserved) content was in the window;
 * - which argument values occur in untrusted content and in no trusted content (the negative rule), or are
 *   tainted (`options.tainted`); and which string arguments hold, once their separators and white space are
 *   gone, a value-like token of untrusted content that no trusted content holds (`compactOccurrences`: a link
 *   cut in two, spaced out or dashed inside a body);
 * - for every argument value, whether it is derived from trusted content (the positive rule): it occurs in
 *   trusted content of an observed window or in `options.trustedValues`, and is not tainted.
 * The cost is one scan of the window's canonical text per candidate value.
 *
 * @example analyzeInfluence(window, { recipient: 'DE89 3704 0044 0532 0130 00' }, { tainted })
 */
export function analyzeInfluence(
  window: ProvenanceWindow,
  args: unknown,
  options: InfluenceOptions = {},
): InfluenceReport {
  const untrusted = window.items.filter((item) => item.label.trust === Trust.Untrusted);
  // A text that entered the window untrusted is never trusted content, whatever else it was seen as: otherwise
  // anyone could first send an attacker's page as their own message and so clear it for every other agent.
  const seenUntrusted = new Set(untrusted.map((item) => item.label.fingerprint));
  const trusted = window.observed
    ? window.items.filter((item) => item.label.trust !== Trust.Untrusted && !seenUntrusted.has(item.label.fingerprint))
    : [];
  const trustedValues = [...(options.trustedValues ?? [])].map((value) => canonicalForm(String(value)));
  const tainted = options.tainted ?? new Set<string>();
  const inTrusted = (candidate: Pick<ArgumentCandidate, 'needle' | 'phone'>) =>
    trusted.some((item) => occursIn(item.canonical, candidate)) ||
    trustedValues.some((value) => occursIn(value, candidate));
  const leaves = argumentLeaves(args);
  const influenced = new Map<string, { segments: readonly string[]; sources: Map<string, ProvenanceLabel> }>();
  const note = (candidate: ArgumentCandidate, labels: readonly ProvenanceLabel[]) => {
    const entry = influenced.get(candidate.path) ?? { segments: candidate.segments, sources: new Map() };
    for (const label of labels) entry.sources.set(label.source.toString(), label);
    influenced.set(candidate.path, entry);
  };
  for (const candidate of leaves.flatMap((leaf) => leaf.candidates)) {
    if (tainted.has(candidate.needle)) {
      note(candidate, [taintLabel(candidate)]);
      continue;
    }
    if (untrusted.length === 0) continue;
    const hits = untrusted.filter((item) => occursIn(item.canonical, candidate));
    if (hits.length > 0 && !inTrusted(candidate))
      note(
        candidate,
        hits.map(({ label }) => label),
      );
  }
  compactOccurrences(untrusted, leaves, inTrusted, note);
  // A boolean or `null` carries no value to trace: the positive rule reads strings and numbers only.
  const derived = (leaf: ArgumentLeaf): boolean =>
    leaf.value === null ||
    (!leaf.candidates.some((candidate) => tainted.has(candidate.needle)) &&
      !tainted.has(leaf.value.needle) &&
      (options.ownRequest === true || inTrusted(leaf.value)));
  const derivation: ArgumentDerivation[] = leaves.map((leaf) => ({
    path: leaf.path,
    segments: leaf.segments,
    derived: derived(leaf),
  }));
  const argumentsInfluenced: ArgumentInfluence[] = [...influenced].map(([path, { segments, sources }]) => ({
    path,
    segments,
    sources: [...sources.values()],
  }));
  return {
    untrustedContext: window.untrusted,
    observed: window.observed,
    untrustedSources: window.untrustedSources(),
    arguments: argumentsInfluenced,
    derivation,
  };
}

/** The label of a value found in the taint ledger: its fingerprint, never the value. */
function taintLabel(candidate: ArgumentCandidate): ProvenanceLabel {
  return { source: TAINT_LEDGER_SOURCE, trust: Trust.Untrusted, fingerprint: candidateFingerprint(candidate) };
}
