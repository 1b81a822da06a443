import type { ProvenanceLabel } from './provenance-label.js';

/** An argument whose value occurs in untrusted content and in no trusted content of the window. */
export interface ArgumentInfluence {
  /** The argument path (`recipient`, `items.0.iban`): a name from the schema, never the value. */
  readonly path: string;
  readonly segments: readonly string[];
  /** The untrusted items it occurs in, one label per distinct source. */
  readonly sources: readonly ProvenanceLabel[];
}

/**
 * Whether one argument value (a string or number leaf) is derived from trusted content: its canonical form occurs
 * in trusted content of the window or in the application-declared trusted set, and it is not tainted. What the
 * positive rule (`{ derivedFrom: 'trusted' }`) reads.
 */
export interface ArgumentDerivation {
  /** The argument path of the leaf: a name from the schema, never the value. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly derived: boolean;
}

/**
 * What influence analysis found for one proposal: paths and labels, never argument values or content.
 * `untrustedContext` is the sound, coarse finding; `arguments` the precise one, which paraphrased or encoded
 * values evade.
 */
export interface InfluenceReport {
  /** Untrusted (or unobserved) content was in the window when the call was proposed. */
  readonly untrustedContext: boolean;
  /** Whether the window was observed at all. */
  readonly observed: boolean;
  /** The untrusted sources in the window, one label per distinct source. */
  readonly untrustedSources: readonly ProvenanceLabel[];
  readonly arguments: readonly ArgumentInfluence[];
  /** Every leaf of the arguments, and whether its value is derived from trusted content. */
  readonly derivation: readonly ArgumentDerivation[];
}
