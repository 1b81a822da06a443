import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';

/**
 * `spans` sorted by `start`, after checking that each lies inside `text` (integers, `0 <= start < end <= length`) and
 * that none overlap. @throws DetectionInputError
 */
export function orderedSpans(text: string, spans: readonly DetectedSpan[], where: string): DetectedSpan[] {
  if (typeof text !== 'string')
    throw new DetectionInputError(`${where} needs a string, got ${text === null ? 'null' : typeof text}`);
  if (!Array.isArray(spans)) throw new DetectionInputError(`${where} needs an array of spans`);
  spans.forEach((span, index) => {
    const { start, end } = span ?? {};
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start >= end || end > text.length) {
      throw new DetectionInputError(
        `${where}: span ${index} [${String(start)}, ${String(end)}) is not inside the text (length ${text.length})`,
      );
    }
  });
  const ordered = [...spans].sort((a, b) => a.start - b.start);
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i].start < ordered[i - 1].end)
      throw new DetectionInputError(
        `${where}: spans overlap at offset ${ordered[i].start}; resolve them with detect()`,
      );
  }
  return ordered;
}
