import { escapedUnprintable } from './printable-text.js';

/** What a line of output may interpolate: a text or a number, printed as `String(value)` gives it. */
export type LineValue = string | number | bigint | boolean;

/**
 * A line the operator CLI writes (ADR 0154), as a tagged template: the template's own text as written, and each
 * interpolated value with every character that would not print as itself, line breaks and tabs included, written as
 * its `\uXXXX` escape. A value read from a store, a server or argv therefore stays on the line the template puts it
 * on: it can neither start a line of its own, nor move the cursor, nor hide text. Only the template's own text breaks
 * lines; join lines with `\n` to write several. Every command writes its lines with it, table cells and `fail`'s
 * message included; the streams then escape what is left (`printableStreams`).
 *
 * @example this.streams.out(line`claim ${id}: ${from} -> ${status} (by ${by})`);
 */
export function line(template: TemplateStringsArray, ...values: readonly LineValue[]): string {
  let text = template[0]!;
  for (let i = 0; i < values.length; i++) text += escapedLine(values[i]) + template[i + 1]!;
  return text;
}

/** `value` as {@link line} writes it: `String(value)` with every character that would not print as itself escaped. */
export function escapedLine(value: LineValue): string {
  return escapedUnprintable(String(value));
}
