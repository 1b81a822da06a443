/**
 * A number as written in text: thousands grouped with commas, a decimal part, an exponent. A number inside a
 * dotted sequence (`1.2.3`, a date, an address) or glued to letters is not one.
 */
const NUMBER = /(?<![\p{L}\p{N}.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d{1,2})?(?![\p{L}\p{N}]|[.,]\d)/gu;
const PARTS = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/u;

/**
 * Numbers written with thousands separators, decimals or exponents, as one plain decimal: `10,000`, `10000.00`
 * and `1e4` all read `10000`; `0.50` reads `0.5`. Plain integers are left as they are (a leading zero is part of
 * a phone number or an account id).
 *
 * @example canonicalNumbers('pay 10,000.00 or 1e4') === 'pay 10000 or 10000'
 */
export function canonicalNumbers(text: string): string {
  return text.replace(NUMBER, (number) => (/[.,e]/u.test(number) ? plainDecimal(number.replaceAll(',', '')) : number));
}

function plainDecimal(number: string): string {
  const [, whole, fraction = '', exponent = '0'] = PARTS.exec(number) ?? [];
  if (whole === undefined) return number;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const integer = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
  const decimals = (point < 0 ? '0'.repeat(-point) + digits : digits.slice(Math.max(point, 0))).replace(/0+$/u, '');
  const trimmed = integer.replace(/^0+(?=\d)/u, '');
  return decimals === '' ? trimmed : `${trimmed}.${decimals}`;
}
