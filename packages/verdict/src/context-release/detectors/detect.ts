import { assertText } from './candidate-detector.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import type { PiiDetector } from './pii-detector.interface.js';
import { resolveOverlaps } from './resolve-overlaps.js';

/**
 * Runs every detector over `text` and returns the spans sorted by `start`, without overlaps. Where spans overlap, the
 * longest wins; on equal length the earliest; then the more sensitive class (`123-45-6789` is an SSN, not a phone);
 * then the detector listed first. The result is what {@link redactText} and `PlaceholderVault.tokenize` expect.
 *
 * For a post-scrub check ("may this payload leave?"), ask each detector (`detector.detect(text).length > 0`) instead: a
 * span dropped here in favour of a longer one (a card number used as the local part of an e-mail address) still means
 * its class is present. Detection is a heuristic; no result proves a text clean.
 *
 * @throws DetectionInputError when `text` is not a string or a detector returns a span outside the text.
 * @example detect('Mail ada@example.org or call +1 415 555 2671', DEFAULT_DETECTORS).map((s) => s.label) // ['EMAIL', 'PHONE']
 */
export function detect(text: string, detectors: readonly PiiDetector[]): DetectedSpan[] {
  assertText(text, 'detect()');
  if (!Array.isArray(detectors)) throw new DetectionInputError('detect() needs an array of detectors');
  const found: DetectedSpan[] = [];
  for (const detector of detectors) {
    for (const span of detector.detect(text)) {
      if (
        !Number.isInteger(span.start) ||
        !Number.isInteger(span.end) ||
        span.start < 0 ||
        span.start >= span.end ||
        span.end > text.length
      ) {
        throw new DetectionInputError(`detector ${detector.name} returned a span outside the text`);
      }
      found.push(span);
    }
  }
  return resolveOverlaps(found);
}
