/**
 * A number as written in text: thousands grouped with commas, a decimal part, an exponent. A number inside a
 * dotted sequence (`1.2.3`, a date, an address) or glued to letters is not one.
 */
const NUMBER = /(?<![\p{L}\p{N}.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d{1,2})?(?![\p{L}\p{N}]|[.,]\d)/gu;
/**
 * A number in a locale's grouping that English never writes: groups of three after dots or spaces, then a decimal
 * comma (`10.000,50`, `10 000,50`); or groups after apostrophes (`10'000`, `10’000.50`). A dotted number without
 * a decimal comma (`10.000`) is left to be read as a decimal: it is ten in English and ten thousand in German.
 */
const LOCALE_NUMBER =
  /(?<![\p{L}\p{N}.,'’])(?:\d{1,3}([. ])\d{3}(?:\1\d{3})*,\d+|\d{1,3}(?:['’]\d{3})+(?:\.\d+)?)(?![\p{L}\p{N}]|[.,'’]\d)/gu;
/**
 * A decimal comma without grouping, one or two digits after it, beside a currency sign (`1234,56 €`, `€12,5`):
 * money, so a decimal. Without the sign it stays as written: `1,5` may be a list.
 */
const DECIMAL_COMMA =
  /(?<=\p{Sc} ?)\d+,\d{1,2}(?![\p{L}\p{N}]|[.,'’]\d)|(?<![\p{L}\p{N}.,'’])\d+,\d{1,2}(?= ?\p{Sc})/gu;
const PARTS = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/u;

/**
 * Numbers written with thousands separators, decimals or exponents, as one plain decimal: `10,000`, `10000.00`
 * and `1e4` all read `10000`; `0.50` reads `0.5`. Plain integers are left as they are (a leading zero is part of
 * a phone number or an account id). Numbers in a locale's unambiguous grouping are read alike: `10.000,00`,
 * `10 000,00` and `10'000` all read `10000`; so is a decimal comma with one or two digits after it beside a currency
 * sign (`1234,50 €` reads `1234.5 €`).
 *
 * @example canonicalNumbers('pay 10,000.00 or 1e4') === 'pay 10000 or 10000'
 */
export function canonicalNumbers(text: string): string {
  const grouped = /\d[.' ’]\d{3}/u.test(text) ? text.replace(LOCALE_NUMBER, localeDecimal) : text;
  const locale = grouped.includes(',')
    ? grouped.replace(DECIMAL_COMMA, (number) => plainDecimal(number.replace(',', '.')))
    : grouped;
  return locale.replace(NUMBER, (number) =>
    /[.,e]/u.test(number) ? plainDecimal(number.replaceAll(',', '')) : number,
  );
}

function localeDecimal(number: string, groupSeparator: string | undefined): string {
  return groupSeparator === undefined
    ? plainDecimal(number.replace(/['’]/gu, ''))
    : plainDecimal(number.replaceAll(groupSeparator, '').replace(',', '.'));
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
