import type { Change } from './change.js';

/** The differences between a baseline and the current run; `blocking` when any change is blocking. */
export interface Comparison {
  readonly changes: readonly Change[];
  readonly blocking: boolean;
}
