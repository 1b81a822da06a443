import { Trust } from '../context-release/trust.js';
import { argumentCandidates } from './argument-candidates.js';
import type { ArgumentInfluence, InfluenceReport } from './influence-report.js';
import type { LabelledContent } from './labelled-content.js';
import type { ProvenanceLabel } from './provenance-label.js';
import type { ProvenanceWindow } from './provenance-window.js';

/**
 * Influence analysis of one proposal (step 1a): whether untrusted content was in the window, and which
 * argument values occur in untrusted content and not in trusted content (the application's, the user's
 * message). Values are compared normalized (NFKC, case folded, format characters removed, white space
 * collapsed); the cost is one substring scan of the window's prepared text per candidate value.
 */
export function analyzeInfluence(window: ProvenanceWindow, args: unknown): InfluenceReport {
  const untrusted = window.items.filter((item) => item.label.trust === Trust.Untrusted);
  // A text that entered the window untrusted is never trusted content, whatever else it was seen as: otherwise
  // anyone could first send an attacker's page as their own message and so clear it for every other agent.
  const tainted = new Set(untrusted.map((item) => item.label.fingerprint));
  const trusted = window.items.filter(
    (item) => item.label.trust !== Trust.Untrusted && !tainted.has(item.label.fingerprint),
  );
  const influenced = new Map<string, { segments: readonly string[]; sources: Map<string, ProvenanceLabel> }>();
  if (untrusted.length > 0) {
    for (const candidate of argumentCandidates(args)) {
      const { needle, compact } = candidate;
      const hits = untrusted.filter((item) => occursIn(item, needle, compact));
      if (hits.length === 0 || trusted.some((item) => occursIn(item, needle, compact))) continue;
      const entry = influenced.get(candidate.path) ?? { segments: candidate.segments, sources: new Map() };
      for (const { label } of hits) entry.sources.set(label.source.toString(), label);
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

/** Whether `needle` occurs in the item as a whole token (grouped values: anywhere in the compact text). */
function occursIn(item: LabelledContent, needle: string, compact: boolean): boolean {
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
