import type { Trust } from '../context-release/trust.js';
import type { ProvenanceSource } from './provenance-source.js';

/**
 * The provenance label of one content item that entered an agent's context: where it came from, whether it
 * may carry instructions the application did not write, and the fingerprint of its text (never the text).
 *
 * @example
 * { source: ProvenanceSource.tool('products.view'), trust: Trust.Untrusted, fingerprint: 'e3b0…' }
 */
export interface ProvenanceLabel {
  readonly source: ProvenanceSource;
  readonly trust: Trust;
  /** `sha256` of the item's text as it entered the context. */
  readonly fingerprint: string;
}

/** `kind:name (trust)`, as decisions and approvers read it. */
export function describeLabel(label: Pick<ProvenanceLabel, 'source' | 'trust'>): string {
  return `${label.source.toString()} (${label.trust})`;
}
