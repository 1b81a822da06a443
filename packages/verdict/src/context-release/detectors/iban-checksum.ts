const COMPACT_IBAN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

/**
 * ISO 13616 check of a compact (unspaced, upper-case) IBAN: country code, two check digits (02–98) and a BBAN, 15–34
 * characters; moving the first four characters to the end and reading letters as 10–35 must leave remainder 1 mod 97.
 * Country-specific lengths are not checked.
 */
export function passesIbanChecksum(compact: string): boolean {
  if (!COMPACT_IBAN.test(compact)) return false;
  const checkDigits = Number(compact.slice(2, 4));
  if (checkDigits < 2 || checkDigits > 98) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    // Digits shift the remainder by one decimal place, letters (A = 10 … Z = 35) by two.
    remainder = code <= 57 ? (remainder * 10 + (code - 48)) % 97 : (remainder * 100 + (code - 55)) % 97;
  }
  return remainder === 1;
}
