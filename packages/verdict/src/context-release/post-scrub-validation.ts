import type { JsonValue } from '../fingerprints/json-value.js';
import type { DataClass } from './data-class.js';
import { DEFAULT_DETECTORS } from './detectors/default-detectors.js';
import type { DetectedSpan, PiiDetector } from './detectors/index.js';

/** Verdict's own detectors: each span one finds carries the detector's own class. */
const OWN_CLASS_ONLY: ReadonlySet<PiiDetector> = new Set(DEFAULT_DETECTORS);

/**
 * The first detection in the final payload whose data class is not in `allowed` (the classes the route releases at
 * the release's trust level), or `undefined`.
 * Every string is checked, keys as well as values, and every number as canonical JSON writes it, in document order, by each
 * detector on its own (so a span that `detect()` would drop in favour of a longer overlapping one still counts).
 * A miss proves nothing: detectors find what their patterns describe, never all personal data.
 */
export function firstDisallowedDetection(
  payload: JsonValue,
  detectors: readonly PiiDetector[],
  allowed: ReadonlySet<DataClass>,
): DetectedSpan | undefined {
  // A built-in detector of a class the route allows cannot fire; an application's detector may report spans of
  // another class than the one it declares, so each of its spans is read.
  const watched = detectors.filter((detector) => !(OWN_CLASS_ONLY.has(detector) && allowed.has(detector.dataClass)));
  if (watched.length === 0) return undefined;
  const check = (text: string): DetectedSpan | undefined => {
    for (const detector of watched) {
      const span = detector.detect(text).find((found) => !allowed.has(found.dataClass));
      if (span !== undefined) return span;
    }
    return undefined;
  };
  // Payloads repeat their keys (one per array element): a key found clean once is not checked again.
  const cleanKeys = new Set<string>();
  const checkKey = (key: string): DetectedSpan | undefined => {
    if (cleanKeys.has(key)) return undefined;
    const found = check(key);
    if (found === undefined) cleanKeys.add(key);
    return found;
  };
  const walk = (value: JsonValue): DetectedSpan | undefined => {
    if (typeof value === 'string') return check(value);
    // A card or phone number stored as a JSON number is the same number: the text canonical JSON writes for it is
    // checked, whatever its size (`4111111111111120400`) or fraction (`4111111111111111.5`).
    if (typeof value === 'number') return Number.isFinite(value) ? check(String(value)) : undefined;
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value)) {
      for (const item of value) {
        const found = walk(item);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (const key of Object.keys(value)) {
      const found = checkKey(key) ?? walk(value[key]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(payload);
}
