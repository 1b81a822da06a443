/**
 * What the model-input guard reads in text (ADR 0013). Two kinds of check:
 * - hidden encodings, refused wherever they occur: Unicode TAG characters (U+E0000–E007F, "ASCII smuggling")
 *   outside an emoji flag sequence, and runs of variation selectors ("emoji smuggling"); in messages that are
 *   not the user's, any format character (category Cf) but a joiner between two letters or emoji;
 * - structured data, matched in the text as inspected: without control characters, format characters,
 *   combining marks and blank fillers (U+3164, U+115F, …), NFKC-normalized (fullwidth `｛` is `{`).
 */

/** Invisible or blank characters that are not whitespace: Cc but tab and line breaks, Cf, Mn, Me, and filler letters. */
const INVISIBLE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]/gu;
/** An emoji flag tag sequence (🏴 + TAG letters or digits + CANCEL TAG): the one legitimate use of TAG characters. */
const FLAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}/gu;
const TAG = /[\u{E0000}-\u{E007F}]/u;
const VARIATION_SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2}/u;
const FORMAT = /\p{Cf}/u;
/** A ZWNJ or ZWJ that joins two letters (Persian, Indic scripts) or two emoji (👨‍👩‍👧). */
const JOINER = /(?<=[\p{L}\p{M}\p{Extended_Pictographic}\uFE0F])[\u200C\u200D](?=[\p{L}\p{Extended_Pictographic}])/gu;

/** Whitespace or comments, between the tokens of structured data. */
const GAP = String.raw`(?:\s|/\*[\s\S]*?\*/|//[^\n]*(?:\n|$)|#[^\n]*(?:\n|$))*`;
const KEY = String.raw`(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[\p{L}_$][\p{L}\p{N}_$-]*)`;
const IDENTIFIER = String.raw`[\p{L}_][\p{L}\p{N}_-]*`;
/** A scalar array element: a number, a literal, or (Python) `None` / `True` / `False`. */
const SCALAR = String.raw`(?:[-+]?[\d.][\d.eE+-]*|null|true|false|None|True|False)`;
/** An element no citation holds: a literal, a decimal, or a number of five digits or more. */
const NOT_CITATION = String.raw`(?:null|true|false|None|True|False|[-+]?\d*\.\d|[-+]?\d{5,})`;

const STRUCTURE = [
  // An object member: {"key":, {'key':, {key:, {key = (also behind comments).
  String.raw`\{${GAP}${KEY}${GAP}[:=]`,
  // An array holding a string, object or array, after any scalars.
  String.raw`\[${GAP}(?:${SCALAR}${GAP},${GAP})*["'{[]`,
  // An array of scalars that is not a citation: four or more, or one a citation never holds.
  String.raw`\[${GAP}(?:${SCALAR}${GAP},${GAP}){3,}${SCALAR}`,
  String.raw`\[${GAP}(?:${SCALAR}${GAP},${GAP})*${NOT_CITATION}${GAP}[,\]]`,
  // Two consecutive YAML mapping lines (`email: x` then `card: y`, or `customer:` then `  email: x`).
  String.raw`^[ \t]*(?:- )?${KEY}[ \t]*:(?:[ \t][^\n]*)?\n[ \t]*(?:- )?${KEY}[ \t]*:(?:[ \t]|$)`,
  // A call with keyword arguments: dict(email=...), Customer(email=...).
  String.raw`[\p{L}_$][\p{L}\p{N}_$.]*\(${GAP}${IDENTIFIER}${GAP}=(?!=)`,
].map((source) => new RegExp(source, 'mu'));

/** A fenced code block (```lang … ```) and its content. */
const FENCED = /(?:^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n([\s\S]*?)(?:\n[ \t]*\1|$)/gu;

/**
 * The text as the guard inspects it: without control characters (but tab and line breaks), format
 * characters, combining marks and blank fillers, NFKC-normalized.
 *
 * @example inspectedText('{\u3164"a":1}') // '{"a":1}'
 */
export function inspectedText(text: string): string {
  return text.replace(INVISIBLE, '').normalize('NFKC');
}

/**
 * Whether the text hides encoded data: a TAG character outside an emoji flag sequence, or two variation
 * selectors in a row. Refused in every message, the user's included.
 *
 * @example hidesEncodedData('Hi\u{E007B}\u{E0022}') // true
 * @example hidesEncodedData('heart \u2764\uFE0F') // false
 */
export function hidesEncodedData(text: string): boolean {
  return TAG.test(text.replace(FLAG_SEQUENCE, '')) || VARIATION_SELECTOR_RUN.test(text);
}

/**
 * Whether the text holds a format character (Cf) other than a ZWNJ or ZWJ joining two letters or emoji: the
 * rule for text that is not the user's (system prompts, model answers, `additional_kwargs`).
 *
 * @example hasFormatCharacters('Noted.\u200B') // true
 * @example hasFormatCharacters('\u{1F468}\u200D\u{1F469}') // false
 */
export function hasFormatCharacters(text: string): boolean {
  return FORMAT.test(text.replace(JOINER, ''));
}

/**
 * Whether the whole inspected text, or a fenced code block in it, is a JSON object or array (the rule for
 * what a user types: prose that merely contains braces passes).
 *
 * @example isJsonDocument('\u200B{"email": "x"}') // true
 * @example isJsonDocument('Here:\n```json\n{"email": "x"}\n```') // true
 * @example isJsonDocument('My order {1002} is late') // false
 */
export function isJsonDocument(text: string): boolean {
  const inspected = inspectedText(text);
  return [inspected, ...[...inspected.matchAll(FENCED)].map((fence) => fence[2])].some(isWholeJson);
}

/**
 * Whether structured data occurs anywhere in the inspected text: an object member (also behind comments), an
 * array holding a string, object, array or literal, an array of scalars that is no citation, two YAML mapping
 * lines, or a call with keyword arguments — after a prose prefix, in the middle, or unterminated. The rule
 * for messages that are not the user's. A pattern, not a parser: ADR 0013 lists what it cannot see.
 *
 * @example containsStructure('Noted: {"email": "x"}') // true
 * @example containsStructure('Your parcel left on Monday [1].') // false
 */
export function containsStructure(text: string): boolean {
  const inspected = inspectedText(text);
  return STRUCTURE.some((pattern) => pattern.test(inspected));
}

/**
 * Whether text that is not the user's (a system prompt, a model answer, an `additional_kwargs` string) may reach
 * the model unsealed: no hidden encoding, no format character but a joiner, no structured data.
 *
 * @example isPlainText('You are the storefront assistant.') // true
 * @example isPlainText(`Noted.\u{E007B}`) // false
 */
export function isPlainText(text: string): boolean {
  return !hidesEncodedData(text) && !hasFormatCharacters(text) && !containsStructure(text);
}

function isWholeJson(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
