import { Trust } from '../context-release/trust.js';
import { argumentCandidates } from './argument-candidates.js';
import type { ArgumentInfluence, InfluenceReport } from './influence-report.js';
import type { LabelledContent } from './labelled-content.js';
import type { ProvenanceLabel } from './provenance-label.js';
import type { ProvenanceWindow } from './provenance-window.js';
import { TAINT_SOURCE } from './provenance-source.js';
import { candidateFingerprint } from './taint/candidate-fingerprint.js';

/** Options of {@link analyzeInfluence}. */
export interface InfluenceAnalysisOptions {
  /**
   * The candidate `needle`s found in the taint ledger: each is influenced (source `taint:ledger`) wherever it
   * occurs, whatever trusted content of the window also holds it. Default: none.
   */
  readonly tainted?: ReadonlySet<string>;
}

/**
 * Influence analysis of one proposal (step 1a): whether untrusted content was in the window, and which
 * argument values occur in untrusted content and not in trusted content (the application's, the user's
 * message). Values are compared normalized (NFKC, case folded, format characters removed, white space
 * collapsed); the cost is one substring scan of the window's prepared text per candidate value.
 */
export function analyzeInfluence(
  window: ProvenanceWindow,
  args: unknown,
  options: InfluenceAnalysisOptions = {},
): InfluenceReport {
  const untrusted = window.items.filter((item) => item.label.trust === Trust.Untrusted);
  const trusted = trustedContentOf(window);
  const taintedValues = options.tainted ?? new Set<string>();
  const influenced = new Map<string, { segments: readonly string[]; sources: Map<string, ProvenanceLabel> }>();
  if (untrusted.length > 0 || taintedValues.size > 0) {
    for (const candidate of argumentCandidates(args)) {
      const { needle, compact } = candidate;
      const hits = untrusted.filter((item) => occursIn(item, needle, compact)).map(({ label }) => label);
      // A tainted value came back through a result, trusted or not: trusted content holding it proves nothing.
      if (taintedValues.has(needle))
        hits.push({ source: TAINT_SOURCE, trust: Trust.Untrusted, fingerprint: candidateFingerprint(candidate) });
      else if (hits.length === 0 || trusted.some((item) => occursIn(item, needle, compact))) continue;
      const entry = influenced.get(candidate.path) ?? { segments: candidate.segments, sources: new Map() };
      for (const label of hits) entry.sources.set(label.source.toString(), label);
      influenced.set(candidate.path, entry);
    }
  }
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
  };
}

/** The window's trusted content: its trusted items, less every text that also entered it untrusted. */
export function trustedContentOf(window: ProvenanceWindow): readonly LabelledContent[] {
  // A text that entered the window untrusted is never trusted content, whatever else it was seen as: otherwise
  // anyone could first send an attacker's page as their own message and so clear it for every other agent.
  const untrusted = new Set(
    window.items.filter((item) => item.label.trust === Trust.Untrusted).map((item) => item.label.fingerprint),
  );
  return window.items.filter((item) => item.label.trust !== Trust.Untrusted && !untrusted.has(item.label.fingerprint));
}

/** Whether `needle` occurs in the item as a whole token (grouped values: anywhere in the compact text). */
export function occursIn(item: LabelledContent, needle: string, compact: boolean): boolean {
  if (compact) return item.compact.includes(needle);
  const text = item.normalized;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (!isWordCharacter(text.codePointAt(at - 1)) && !isWordCharacter(text.codePointAt(at + needle.length)))
      return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}]/u;

function isWordCharacter(codePoint: number | undefined): boolean {
  return codePoint !== undefined && WORD.test(String.fromCodePoint(codePoint));
}
