import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { passesLuhn } from './luhn.js';
import { paymentCardDetector } from './payment-card.detector.js';

const found = (text: string) => paymentCardDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('paymentCardDetector', () => {
  it.each([
    ['4111111111111111'],
    ['4111 1111 1111 1111'],
    ['5555-5555-5555-4444'],
    ['3782 822463 10005'],
    ['4222222222222'],
    ['6011 0009 9013 9424'],
  ])('finds the Luhn-valid number %s', (card) => {
    expect(found(`Card: ${card}, exp 12/29.`)).toEqual([card]);
  });

  it('reports label and class', () => {
    expect(paymentCardDetector.detect('4111111111111111')).toEqual([
      { detector: 'payment-card', label: 'CARD', dataClass: DataClass.Sensitive, start: 0, end: 16 },
    ]);
  });

  it.each([
    ['a Luhn-invalid number', '4111 1111 1111 1112'],
    ['12 digits', '4111 1111 1111'],
    ['20 digits', '41111111111111111113'],
    ['a card inside a longer run of groups', '4111 1111 1111 1111 5555 5555 5555 4444'],
    ['a number glued to letters', 'ID4111111111111111'],
    ['mixed separators', '4111 1111-1111 1111'],
    ['single-digit groups', '4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1'],
    ['a Luhn-valid number outside the card ranges', '1234567812345670'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });

  it('checks Luhn digit by digit', () => {
    expect(passesLuhn('79927398713')).toBe(true);
    expect(passesLuhn('79927398710')).toBe(false);
  });
});
