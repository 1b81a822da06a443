import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { phoneDetector } from './phone.detector.js';

const found = (text: string) => phoneDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('phoneDetector', () => {
  it.each([
    ['+1 415 555 2671'],
    ['+14155552671'],
    ['+44 20 7946 0958'],
    ['+1 (415) 555-2671'],
    ['+49 (0)30 123456'],
    ['(415) 555-2671'],
    ['415-555-2671'],
    ['415.555.2671'],
    ['020 7946 0958'],
    ['06 12 34 56 78'],
    ['1 800 555 0199'],
  ])('finds %s in a sentence', (phone) => {
    expect(found(`Call ${phone}, ask for Ada.`)).toEqual([phone]);
  });

  it('starts a new number at every +, even after a single space', () => {
    expect(found('+1 415 555 2671 +44 20 7946 0958')).toEqual(['+1 415 555 2671', '+44 20 7946 0958']);
  });

  it('reports label and class', () => {
    expect(phoneDetector.detect('+14155552671')).toEqual([
      { detector: 'phone', label: 'PHONE', dataClass: DataClass.Pii, start: 0, end: 12 },
    ]);
  });

  it.each([
    ['a year', 'Founded in 2024.'],
    ['an order number', 'Order ORD-10023 shipped'],
    ['a long order number', 'Order ORD-415-555-2671'],
    ['an unbroken digit run', 'Invoice 4155552671'],
    ['a timestamp', '1718000000000'],
    ['an ISO date', '2024-01-15'],
    ['a dotted date', '15.01.2024'],
    ['a range of years', '2019-2024'],
    ['a short local number', '555-2671'],
    ['a thousands grouping', '1 234 567 890 units'],
    ['a dotted-quad address', '10.100.200.30'],
    ['an ISBN', '978-0-306-40615-7'],
    ['an SSN', '123-45-6789'],
    ['single digits', '1 2 3 4 5 6 7 8 9'],
    ['too many digits', '+1 415 555 2671 1234 5678'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });
});
