import type { ContextLabeller } from '../provenance/context-labeller.js';
import type { ProvenanceWindow } from '../provenance/provenance-window.js';

/** The labeller of the tracker that left each window for the calls proposed in it. */
const labellers = new WeakMap<ProvenanceWindow, ContextLabeller>();

/**
 * `window` is the one `labeller`'s tracker leaves for the calls proposed in it: a bound tool answering such a call
 * labels its result with that tracker's options (a tool named in `tools` is its source's, ADR 0083). An unobserved
 * window is every tracker's, hence no one's.
 */
export function leftBy(window: ProvenanceWindow, labeller: ContextLabeller): void {
  if (window.observed) labellers.set(window, labeller);
}

/** The labeller of the tracker that left `window`, if any. */
export function labellerOf(window: ProvenanceWindow): ContextLabeller | undefined {
  return labellers.get(window);
}
