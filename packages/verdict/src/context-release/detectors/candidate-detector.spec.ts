import { describe, expect, it } from '@jest/globals';
import { emailDetector } from './email.detector.js';
import { ibanDetector } from './iban.detector.js';
import { ipAddressDetector } from './ip-address.detector.js';
import { paymentCardDetector } from './payment-card.detector.js';
import type { PiiDetector } from './pii-detector.interface.js';
import { phoneDetector } from './phone.detector.js';
import { usSsnDetector } from './us-ssn.detector.js';

const found = (detector: PiiDetector, text: string) =>
  detector.detect(text).map((span) => text.slice(span.start, span.end));

// A candidate the check rejects may run into the value after it; the scan resumes one character after the rejected
// candidate's start (where the pattern's lookbehind allows a new one), and right after an accepted span. The e-mail
// detector resumes after the whole rejected candidate: a run with two @ signs holds no address.
describe('scanCandidates resumes inside a rejected candidate', () => {
  it('attack: a phone number after a parenthesized group too long to be its area code is found', () => {
    expect(found(phoneDetector, 'Ref (2024) 0049 30 1234 5678')).toEqual(['0049 30 1234 5678']);
  });

  it.each<[string, PiiDetector, string, string[]]>([
    ['iban', ibanDetector, 'FY24 DE89 3704 0044 0532 0130 00', ['DE89 3704 0044 0532 0130 00']],
    ['email', emailDetector, 'ada@example.org, bob@example.org.', ['ada@example.org', 'bob@example.org']],
    ['phone', phoneDetector, '+1 415 555 2671 +44 20 7946 0958', ['+1 415 555 2671', '+44 20 7946 0958']],
    [
      'card',
      paymentCardDetector,
      '4111 1111 1111 1111 and 5500 0000 0000 0004',
      ['4111 1111 1111 1111', '5500 0000 0000 0004'],
    ],
    ['ssn', usSsnDetector, '123-45-6789 123-45-6780', ['123-45-6789', '123-45-6780']],
    ['ip', ipAddressDetector, '10.0.0.1 ::ffff:10.0.0.2', ['10.0.0.1', '::ffff:10.0.0.2']],
  ])('control: %s reports each value once, never a part of one', (_name, detector, text, values) => {
    expect(found(detector, text)).toEqual(values);
  });

  it.each<[string, PiiDetector, string]>([
    ['a digit run after a rejected card', paymentCardDetector, '4111 1111 1111 1112 2024'],
    ['a tail of a longer digit run', paymentCardDetector, '1 4111 1111 1111 1111'],
    ['a tail of a dashed run', usSsnDetector, '000-12-3456-78'],
    ['a tail of a dotted run', ipAddressDetector, '1.2.3.4.5'],
    ['a tail of an order number', phoneDetector, 'ORD-415-555-2671'],
    ['a run with two @ signs', emailDetector, 'EUR@ada@example.org'],
    ['an IBAN glued to a word', ibanDetector, 'xDE89370400440532013000'],
  ])('control: finds nothing inside %s', (_case, detector, text) => {
    expect(found(detector, text)).toEqual([]);
  });
});
