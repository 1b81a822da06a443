import { Trust } from '../context-release/trust.js';
import { analyzeInfluence } from './analyze-influence.js';
import { argumentLeaves } from './argument-candidates.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import type { ProvenanceLabel } from './provenance-label.js';
import type { ProvenanceWindow } from './provenance-window.js';

/**
 * What a tool call the model proposed in `window` carries into the later windows that still show the call
 * (docs/provenance.md §1, ADR 0128): the value of every argument the negative rule found in untrusted content of
 * `window` and in no trusted content, as untrusted content under the sources it was found in. A client that trims
 * the history may drop the content a value came from and keep the call that used it; the model can copy the value
 * from its own call, and the negative rule still finds where it came from.
 *
 * A call adds nothing else: no value from a trusted window, no value found in trusted content, no value found
 * nowhere, and never trust. An argument that is not plain JSON (an invalid call's raw text) is one value.
 *
 * @example proposedCallValues({ recipient: 'DE89 3704 0044 0532 0130 00', amount: 25 }, window)
 */
export function proposedCallValues(args: unknown, window: ProvenanceWindow): readonly LabelledContent[] {
  if (!window.untrusted) return [];
  const { arguments: influenced } = analyzeInfluence(window, args);
  if (influenced.length === 0) return [];
  const sources = new Map(influenced.map(({ path, sources }) => [path, sources]));
  const bySource = new Map<string, { label: ProvenanceLabel; values: string[] }>();
  for (const leaf of argumentLeaves(args)) {
    const found = sources.get(leaf.path);
    if (found === undefined || leaf.value === null) continue;
    for (const label of found) {
      const entry = bySource.get(label.source.toString()) ?? { label, values: [] };
      entry.values.push(leaf.value.needle);
      bySource.set(label.source.toString(), entry);
    }
  }
  // One item per source; its values on lines of their own, so that no two read as one.
  return [...bySource.values()].map(({ label, values }) =>
    labelContent(values.join('\n'), label.source, Trust.Untrusted),
  );
}
