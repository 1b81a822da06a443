import { type Document, isMap, isPair, isScalar, isSeq } from 'yaml';
import { canonicalNumbers } from './canonical-number.js';

/** Sixteen digits, a decimal point among them or not: the shortest number literal a double may not keep. */
const MAY_LOSE_DIGITS = /[\d.]{16}/;

/** The characters a JSON number literal is written with, after its first. */
const NUMBER_CHARACTERS = '0123456789.eE+-';

/**
 * Whether a number's literal holds digits its value, a double, does not: `12345678901234567890` reads
 * `12345678901234567000`, `0.12345678901234567890` reads `0.12345678901234568`. Other spellings of the value
 * (`25.0`, `1E3`) do not.
 */
export function losesDigits(literal: string, value: number): boolean {
  const read = String(value);
  return literal !== read && canonicalNumbers(literal.toLowerCase()) !== canonicalNumbers(read);
}

/**
 * The value of `text`, valid JSON, with each number whose literal {@link losesDigits} as that literal, a string
 * (`{"sender":"12345678901234567890"}`): the same structure as `JSON.parse(text)`. `undefined` when no number loses
 * digits.
 */
export function jsonNumberLiterals(text: string): unknown {
  // A double keeps every literal of at most 15 significant digits: only a run of 16 digits (a point among them) can
  // lose any, and most results have none, so the scan below is skipped.
  if (!MAY_LOSE_DIGITS.test(text)) return undefined;
  const parts: string[] = [];
  let copied = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '"') {
      // A string, skipped to its closing quote: an escaped character is never that quote.
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      let end = at + 1;
      while (end < text.length && NUMBER_CHARACTERS.includes(text[end]!)) end++;
      const literal = text.slice(at, end);
      if (losesDigits(literal, Number(literal))) {
        parts.push(text.slice(copied, at), JSON.stringify(literal));
        copied = end;
      }
      at = end - 1;
    }
  }
  return parts.length === 0 ? undefined : JSON.parse(parts.join('') + text.slice(copied));
}

/**
 * As {@link jsonNumberLiterals}, of a parsed YAML document: its values (never its keys) that are numbers whose
 * literal loses digits are set to that literal, and the document is read again. `doc` is changed.
 */
export function yamlNumberLiterals(doc: Document): unknown {
  let lossy = false;
  eachYamlNode(doc.contents, (node, isKey) => {
    if (!isKey && keepLiteral(node)) lossy = true;
  });
  return lossy ? doc.toJS() : undefined;
}

/**
 * Sets each key of a parsed YAML document that is a number whose literal {@link losesDigits} to that literal, before
 * the document is read: a key is text the source wrote (`12345678901234567890: …` is no `12345678901234567000`), and
 * a model copies it as written. `doc` is changed.
 */
export function yamlKeysAsWritten(doc: Document): void {
  eachYamlNode(doc.contents, (node, isKey) => {
    if (isKey) keepLiteral(node);
  });
}

/** Sets a YAML scalar that is a number whose literal loses digits to that literal; whether it did. */
function keepLiteral(node: unknown): boolean {
  if (!isScalar(node) || typeof node.value !== 'number' || node.source === undefined) return false;
  if (!losesDigits(node.source, node.value)) return false;
  node.value = node.source;
  return true;
}

/** Calls `visit` on each key and each value of a YAML node's maps and sequences, depth first. */
function eachYamlNode(node: unknown, visit: (node: unknown, isKey: boolean) => void): void {
  if (!isMap(node) && !isSeq(node)) return;
  for (const item of node.items) {
    if (isPair(item)) visit(item.key, true);
    const value = isPair(item) ? item.value : item;
    visit(value, false);
    eachYamlNode(value, visit);
  }
}
