const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;
const DIGIT = /^\p{Nd}$/u;
const values = new Map<string, string>();

/**
 * Every decimal digit (`\p{Nd}`: Arabic-Indic `٤`, Devanagari `४`, Bengali `৪`, …) as its ASCII digit, so
 * that a value re-written in another script's digits compares equal to the original.
 *
 * @example asciiDigits('٤٥') === '45'
 */
export function asciiDigits(text: string): string {
  return text.replace(NON_ASCII_DIGIT, digitValue);
}

/**
 * Unicode guarantees that decimal digits come in contiguous runs of ten, zero to nine: a digit's value is its
 * distance from the start of its run (modulo ten, for runs that follow each other).
 */
function digitValue(digit: string): string {
  let value = values.get(digit);
  if (value === undefined) {
    const code = digit.codePointAt(0)!;
    let start = code;
    while (DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
    value = String((code - start) % 10);
    values.set(digit, value);
  }
  return value;
}
