import type { LabelledContent } from '../provenance/labelled-content.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';

/**
 * `window` with `items` after its own: what a model reads once more content joins what it already read. A window
 * Verdict did not observe stays unobserved, whatever joins it.
 */
export function extendedWindow(window: ProvenanceWindow, items: readonly LabelledContent[]): ProvenanceWindow {
  if (!window.observed) return window;
  return items.length === 0 ? window : ProvenanceWindow.of([...window.items, ...items]);
}
