import { Trust } from '../context-release/trust.js';
import { influencingValues } from './analyze-influence.js';
import { labelCarried, type LabelledContent } from './labelled-content.js';
import type { ProvenanceWindow } from './provenance-window.js';

/**
 * What a tool call the model proposed in `window` carries into the later windows that still show the call
 * (docs/provenance.md §1, ADR 0128): each value of its arguments the negative rule found in untrusted content of
 * `window` and in no trusted content, as untrusted content holds it (a phone number in the content's form, each token
 * found cut inside an argument), one item per value and source it was found in. A client
 * that trims the history may drop the content a value came from and keep the call that used it; the model can copy
 * the value from its own call, and the negative rule still finds where it came from.
 *
 * A call carries nothing else: no value from a trusted window, no value found in trusted content (the IBAN the
 * customer typed, in the same free text or not), no value found nowhere, and never trust. An argument that is not
 * plain JSON (an invalid call's raw text) is one string. Each item is fingerprinted apart from any message
 * (`labelCarried`).
 *
 * @example proposedCallValues({ recipient: 'DE89 3704 0044 0532 0130 00', amount: 25 }, window)
 */
export function proposedCallValues(args: unknown, window: ProvenanceWindow): readonly LabelledContent[] {
  if (!window.untrusted) return [];
  const items: LabelledContent[] = [];
  for (const [value, labels] of influencingValues(window, args)) {
    const sources = new Map(labels.map(({ source }) => [source.toString(), source]));
    for (const source of sources.values()) items.push(labelCarried(value, source, Trust.Untrusted));
  }
  return items;
}
