/** Unicode format characters (category Cf: U+200B, U+2060, U+FEFF, …): invisible, so they could hide JSON from a check the model still reads past. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * A JSON object member (`{"key":`, `{'key':`, `{key:`) or an array whose elements include a string, object or
 * array (`["a@b.example"`, `[1, {`), anywhere in the text — also when the whole is not valid JSON. Arrays of
 * numbers alone (`[1]`, `[1, 2]`: citations) and empty braces are prose.
 */
const STRUCTURE = /\{\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_$][\w$]*)\s*:|\[\s*(?:[-+\d.eE]+\s*,\s*)*["'{[]/u;

/**
 * The text without its Unicode format characters: what the guard inspects.
 *
 * @example visibleText('\u200B{"a":1}') // '{"a":1}'
 */
export function visibleText(text: string): string {
  return text.replace(FORMAT_CHARACTERS, '');
}

/**
 * Whether the whole text, once its format characters are removed, is a JSON object or array (the rule for
 * what a user types: prose that merely contains braces passes).
 *
 * @example isJsonDocument('\u200B{"email": "x"}') // true
 * @example isJsonDocument('My order {1002} is late') // false
 */
export function isJsonDocument(text: string): boolean {
  const trimmed = visibleText(text).trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether structured data (an object member, or an array of strings, objects or arrays) occurs anywhere in
 * the text once its format characters are removed: after a prose prefix, in the middle, or unterminated.
 * The rule for messages that are not the user's.
 *
 * @example containsStructure('Noted: {"email": "x"}') // true
 * @example containsStructure('Your parcel left on Monday [1].') // false
 */
export function containsStructure(text: string): boolean {
  return STRUCTURE.test(visibleText(text));
}
