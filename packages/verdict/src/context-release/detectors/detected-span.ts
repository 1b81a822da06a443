import type { DataClass } from '../data-class.js';

/**
 * Where a detector found a value: `text.slice(start, end)`, UTF-16 offsets, `start < end`.
 * A span names what was found, never the value itself, so it is safe to log.
 */
export interface DetectedSpan {
  /** Name of the detector that fired, e.g. `'email'`. */
  readonly detector: string;
  /** Placeholder label, e.g. `'EMAIL'` (tokenized as `<EMAIL_1>`). */
  readonly label: string;
  /** Class of the detected value; a release policy must allow it explicitly. */
  readonly dataClass: DataClass;
  readonly start: number;
  readonly end: number;
}
