import type { Comparison } from '../baselines/comparison.js';

/** How `verdict-eval compare` prints a comparison. */
export const ComparisonFormat = { Console: 'console', GitHub: 'github', JUnit: 'junit', Sarif: 'sarif' } as const;
export type ComparisonFormat = (typeof ComparisonFormat)[keyof typeof ComparisonFormat];

/** What a renderer knows: the comparison, the suite and the files it came from. */
export interface ComparisonContext {
  readonly comparison: Comparison;
  readonly suite: string;
  readonly currentFile: string;
  readonly baselineFile: string;
}

/** A one-line, value-free description of a change, shared by every format. */
export function describeChange({ kind, caseId, purpose, baseline, current }: Comparison['changes'][number]): string {
  const from = baseline === null ? 'absent' : `${baseline.status} (v${baseline.version})`;
  const to = current === null ? 'absent' : `${current.status} (v${current.version})`;
  return `${kind}: ${purpose} case ${caseId}: ${from} → ${to}`;
}
