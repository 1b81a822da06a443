import { renderPath } from '../context-release/release-path.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { compactText, normalizeText } from './normalize-text.js';

/** A value of an argument that influence analysis looks for in the window. */
export interface ArgumentCandidate {
  /** The argument path, e.g. `recipient` or `items.0.iban`. */
  readonly path: string;
  /** The segments of {@link path}. */
  readonly segments: readonly string[];
  /** The normalized value (or, when `compact`, its compacted form). */
  readonly needle: string;
  /** Grouped values (IBANs, phone numbers) are compared without separators. */
  readonly compact: boolean;
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"']+/gu;
const IBAN = /\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,4})?\b/gu;
const PHONE = /\+?\d[\d ()./-]{5,}\d/gu;
/** A token with a digit (order numbers, account ids, codes), four characters or more. */
const IDENTIFIER = /[\p{L}\p{N}_-]*\p{N}[\p{L}\p{N}_-]*/gu;
const MIN_IDENTIFIER = 4;
const MIN_PHONE_DIGITS = 7;

/**
 * The candidate values of validated arguments: every string or number leaf that is one token of four or more
 * characters (an e-mail address, URL, IBAN, phone number or identifier) is a candidate as a whole; free text
 * contributes the e-mail addresses, URLs, IBANs, phone numbers and digit-bearing identifiers it contains.
 * Booleans, `null` and shorter values are not looked for.
 */
export function argumentCandidates(args: unknown): readonly ArgumentCandidate[] {
  const out: ArgumentCandidate[] = [];
  const walk = (value: unknown, segments: string[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, String(i)]));
    else if (isPlainObject(value))
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) walk(item, [...segments, key]);
    else if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))
      candidatesOf(String(value), segments, out);
  };
  walk(args, []);
  return out;
}

function candidatesOf(text: string, segments: readonly string[], out: ArgumentCandidate[]): void {
  const path = renderPath(segments);
  const normalized = normalizeText(text);
  const seen = new Set<string>();
  const add = (needle: string, compact: boolean) => {
    const key = `${compact ? 'c' : 'n'}:${needle}`;
    if (needle.length < MIN_IDENTIFIER || seen.has(key)) return;
    seen.add(key);
    out.push({ path, segments, needle, compact });
  };
  if (!normalized.includes(' ')) {
    // A grouped value is compared in one form only, so that its trusted spelling in groups clears it.
    if (isGrouped(normalized)) add(compactText(normalized), true);
    else add(normalized, false);
    return;
  }
  for (const match of normalized.matchAll(EMAIL)) add(match[0], false);
  for (const match of normalized.matchAll(URL)) add(match[0], false);
  for (const match of normalized.matchAll(IBAN)) add(compactText(match[0]), true);
  for (const match of normalized.matchAll(PHONE))
    if (match[0].replace(/\D/g, '').length >= MIN_PHONE_DIGITS) add(compactText(match[0]), true);
  for (const match of normalized.matchAll(IDENTIFIER)) add(match[0], false);
}

/** A one-token value that may be written with separators elsewhere (an IBAN, a phone number). */
function isGrouped(token: string): boolean {
  return /^[a-z]{2}\d{2}[a-z0-9]{8,30}$/u.test(token) || /^\+?[\d()./-]{7,}$/u.test(token);
}
