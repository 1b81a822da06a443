/**
 * The Luhn (mod 10) check used by payment card numbers: from the right, every second digit is doubled (minus 9 when
 * above 9) and the sum must be a multiple of 10. `digits` holds only `0–9`.
 */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
