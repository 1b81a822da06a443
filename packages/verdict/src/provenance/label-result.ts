import { coversPath, parseReleasePath } from '../context-release/release-path.js';
import { Trust } from '../context-release/trust.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import { ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';
import type { ResultLabel, ResultProvenance } from './result-provenance.js';

/**
 * Labels a tool result of `capability` as its provenance declares, whole or per path: the text under each
 * label becomes one content item. Without a declaration the whole result is untrusted.
 */
export function labelResult(
  text: string,
  capability: string,
  declared: ResultProvenance | undefined,
): readonly LabelledContent[] {
  const tool = ProvenanceSource.named(ProvenanceSourceKind.Tool, capability);
  const sourceOf = (label: ResultLabel) => (label.source === undefined ? tool : ProvenanceSource.of(label.source));
  if (declared === undefined) return [labelContent(text, tool, Trust.Untrusted)];
  const paths = Object.entries(declared.paths ?? {});
  const parsed = paths.length === 0 ? undefined : parseJson(text);
  if (parsed === undefined || (typeof parsed !== 'object' && !Array.isArray(parsed)))
    return [labelContent(text, sourceOf(declared), declared.trust)];
  const patterns = paths
    .map(([path, label]) => [parseReleasePath(path, 'result provenance'), label] as const)
    .sort(([a], [b]) => b.segments.length - a.segments.length);
  const groups = new Map<string, { label: ResultLabel; texts: string[] }>();
  const labelFor = (segments: readonly string[]): ResultLabel =>
    patterns.find(([pattern]) => coversPath(pattern, segments))?.[1] ?? declared;
  const walk = (value: unknown, segments: string[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, String(i)]));
    else if (isPlainObject(value))
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) walk(item, [...segments, key]);
    else if (typeof value === 'string' || typeof value === 'number') {
      const label = labelFor(segments);
      const key = `${sourceOf(label).toString()}|${label.trust}`;
      const group = groups.get(key) ?? { label, texts: [] };
      group.texts.push(String(value));
      groups.set(key, group);
    }
  };
  walk(parsed, []);
  return [...groups.values()].map(({ label, texts }) => labelContent(texts.join('\n'), sourceOf(label), label.trust));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
