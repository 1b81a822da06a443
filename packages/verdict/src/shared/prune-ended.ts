/**
 * Deletes from `windows` every entry whose window ended at or before `now` (`endsAt`, epoch milliseconds); returns
 * how many. The in-memory stores' `prune`.
 */
export function pruneEnded(windows: Map<string, { readonly endsAt: number }>, now: Date): number {
  let pruned = 0;
  for (const [key, window] of windows) {
    if (window.endsAt <= now.getTime()) {
      windows.delete(key);
      pruned++;
    }
  }
  return pruned;
}
