import type { DataClass } from '../data-class.js';
import type { DetectedSpan } from './detected-span.js';

/**
 * Finds one kind of personal or sensitive value in free text. Detectors are pure and stateless: the same text always
 * gives the same spans, sorted by `start` and non-overlapping. Detection is a heuristic; an empty result never proves a
 * text clean.
 *
 * @example emailDetector.detect('mail ada@example.org.') // [{ detector: 'email', label: 'EMAIL', start: 5, end: 20, … }]
 */
export interface PiiDetector {
  /** Stable identifier, e.g. `'payment-card'`; recorded in spans. */
  readonly name: string;
  /** Placeholder label: `A–Z`, `0–9`, `_`, starting with a letter, e.g. `'CARD'`. */
  readonly label: string;
  readonly dataClass: DataClass;
  detect(text: string): readonly DetectedSpan[];
}
