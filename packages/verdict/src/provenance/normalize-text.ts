/** Unicode format characters (zero-width spaces, joiners, bidi controls, soft hyphens): invisible, so removed. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const WHITE_SPACE = /\s+/gu;
/** What phone numbers and IBANs are written with besides their characters. */
const SEPARATORS = /[\s\-./()]+/gu;

/**
 * Text as influence analysis compares it: Unicode NFKC, case folded, format characters (Cf) removed, white
 * space collapsed to one space and trimmed. `ｐａｙ　ＤＥ89` and `pay de89` compare equal.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').replace(FORMAT_CHARACTERS, '').toLowerCase().replace(WHITE_SPACE, ' ').trim();
}

/** Normalized text without separators, for values written in groups (IBANs, phone numbers). */
export function compactText(normalized: string): string {
  return normalized.replace(SEPARATORS, '');
}
