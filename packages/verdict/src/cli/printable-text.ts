/**
 * Characters that do not print as themselves on a terminal: controls (C0, DEL, C1 — escape sequences, carriage
 * returns), invisible format characters (bidirectional overrides, zero-width characters, tags), line and paragraph
 * separators, lone surrogates, and every other default-ignorable character, which a terminal shows as nothing or
 * folds into the character before it (the combining grapheme joiner U+034F, variation selectors U+FE00–FE0F and
 * U+E0100–E01EF, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the Mongolian selectors U+180B–180D).
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** MCP's tool-name characters (SEP-986): a name made only of them prints as it is. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]+$/;

/** `text` with every character that would not print as itself written as its `\uXXXX` escape(s). */
export function escapedUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/**
 * What the operator CLI writes to a terminal (ADR 0154): `text` with its line breaks and tabs kept and every other
 * character that would not print as itself escaped, so that no name or reason read from a store or a server can
 * move the cursor, rewrite the lines above, or hide text. A JSON text stays JSON with the same value: outside its
 * strings it holds none of those characters, and inside them an escape reads back as the character.
 */
export function printableOutput(text: string): string {
  return text.replace(UNPRINTABLE, (character) =>
    character === '\n' || character === '\t' ? character : escaped(character),
  );
}

function escaped(character: string): string {
  let text = '';
  for (let i = 0; i < character.length; i++) text += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return text;
}

/**
 * `text` as a JSON string literal (`JSON.parse` gives `text` back) in which every character prints as itself: what
 * `verdict mcp pin|diff` print of a server's descriptions, and of a name that is not plain.
 */
export function quotedText(text: string): string {
  return escapedUnprintable(JSON.stringify(text));
}

/**
 * A tool or server name as `verdict mcp pin|diff` print it (ADR 0150): as it is when made only of MCP's tool-name
 * characters `[A-Za-z0-9_.-]`, else quoted ({@link quotedText}), so that a server's name for a tool can neither
 * break a line nor move the cursor to rewrite the lines above it.
 */
export function printableName(name: string): string {
  return PLAIN_NAME.test(name) ? name : quotedText(name);
}
