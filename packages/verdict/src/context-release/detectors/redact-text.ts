import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import { orderedSpans } from './ordered-spans.js';

/** What {@link redactText} writes in place of each span unless told otherwise. */
export const DEFAULT_REDACTION = '[REDACTED]';

/**
 * `text` with every span replaced by `replacement` (default `'[REDACTED]'`), one replacement per span. Spans may come in
 * any order but must lie inside the text and must not overlap (use {@link detect}).
 *
 * @throws DetectionInputError for spans out of bounds or overlapping; nothing is returned.
 * @example redactText('Mail ada@example.org now', detect('Mail ada@example.org now', [emailDetector])) // 'Mail [REDACTED] now'
 */
export function redactText(
  text: string,
  spans: readonly DetectedSpan[],
  replacement: string = DEFAULT_REDACTION,
): string {
  if (typeof replacement !== 'string') throw new DetectionInputError('redactText() needs a string replacement');
  let redacted = '';
  let at = 0;
  for (const span of orderedSpans(text, spans, 'redactText()')) {
    redacted += text.slice(at, span.start) + replacement;
    at = span.end;
  }
  return redacted + text.slice(at);
}
