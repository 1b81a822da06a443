import { canonicalForm } from './canonical-form.js';

/**
 * Text as influence analysis compares it: its canonical form (`canonicalForm`: NFKC, case folded, format
 * characters removed, white space collapsed, digits, confusables, URLs, IBANs, numbers and grouped digits in one
 * spelling). `ｐａｙ　ＤＥ89` and `pay de89` compare equal.
 *
 * @deprecated Use `canonicalForm`, which this is now.
 */
export function normalizeText(text: string): string {
  return canonicalForm(text);
}

/**
 * Canonical text without the separators of grouped values (white space, `-`, `.`, `/`, parentheses).
 *
 * @deprecated The canonical form already writes grouped values (IBANs, phone numbers, grouped digits) without
 * separators; analysis no longer uses this.
 */
export function compactText(normalized: string): string {
  return normalized.replace(/[\s\-./()]+/gu, '');
}
