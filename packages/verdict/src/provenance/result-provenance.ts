import type { Source } from '../context-release/source.js';
import type { Trust } from '../context-release/trust.js';
import type { ProvenanceSource } from './provenance-source.js';

/** The provenance of (part of) a tool result: its trust and, optionally, a source other than the tool. */
export interface ResultLabel {
  readonly trust: Trust;
  /** Default: the capability's tool, `tool:<capability>`. */
  readonly source?: Source | ProvenanceSource;
}

/**
 * What a capability's results are, whole or per path (dot paths with `*`, a path covering its subtree): a
 * product's `price` is application data, its `reviews.*.text` third-party text. Paths not covered take the
 * whole result's label. A bound tool without one returns untrusted results.
 *
 * @example
 * results: { trust: Trust.Trusted, paths: { 'reviews.*.text': { trust: Trust.Untrusted, source: Source.external('reviews') } } }
 */
export interface ResultProvenance extends ResultLabel {
  readonly paths?: Readonly<Record<string, ResultLabel>>;
}
