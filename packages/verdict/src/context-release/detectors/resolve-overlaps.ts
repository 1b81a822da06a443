import { DataClass } from '../data-class.js';
import type { DetectedSpan } from './detected-span.js';

const CLASS_RANK: Readonly<Record<DataClass, number>> = {
  [DataClass.Public]: 0,
  [DataClass.Internal]: 1,
  [DataClass.Pii]: 2,
  [DataClass.Sensitive]: 3,
};

/**
 * Keeps a non-overlapping subset of `spans`, sorted by `start`. Conflicts are settled by rank: the longer span wins;
 * on equal length the earlier one; then the more sensitive class; then the span listed first (for `detect`, the
 * detector listed first).
 */
export function resolveOverlaps(spans: readonly DetectedSpan[]): DetectedSpan[] {
  const ranked = spans
    .map((span, order) => ({ span, order }))
    .sort(
      (a, b) =>
        b.span.end - b.span.start - (a.span.end - a.span.start) ||
        a.span.start - b.span.start ||
        CLASS_RANK[b.span.dataClass] - CLASS_RANK[a.span.dataClass] ||
        a.order - b.order,
    );
  const kept: DetectedSpan[] = [];
  for (const { span } of ranked) {
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (kept[middle].start < span.start) low = middle + 1;
      else high = middle;
    }
    const before = kept[low - 1];
    const after = kept[low];
    if ((before !== undefined && before.end > span.start) || (after !== undefined && after.start < span.end)) continue;
    kept.splice(low, 0, span);
  }
  return kept;
}
