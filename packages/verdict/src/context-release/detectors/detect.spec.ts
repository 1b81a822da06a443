import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { DEFAULT_DETECTORS } from './default-detectors.js';
import { detect } from './detect.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import { emailDetector } from './email.detector.js';
import { paymentCardDetector } from './payment-card.detector.js';
import type { PiiDetector } from './pii-detector.interface.js';
import { PlaceholderVault } from './placeholder-vault.js';

/** A detector that reports fixed extents, to pin down overlap resolution. */
function fixedDetector(
  name: string,
  dataClass: DataClass,
  extents: ReadonlyArray<readonly [number, number]>,
): PiiDetector {
  const label = name.toUpperCase();
  return {
    name,
    label,
    dataClass,
    detect: () => extents.map(([start, end]) => ({ detector: name, label, dataClass, start, end })),
  };
}

const extents = (spans: readonly DetectedSpan[]) => spans.map((span) => [span.detector, span.start, span.end]);

describe('detect', () => {
  it('returns the spans of all detectors sorted by start', () => {
    const text =
      'Card 4111 1111 1111 1111 for ada@example.org, call +1 415 555 2671 from 10.0.0.1; IBAN DE89 3704 0044 0532 0130 00, SSN 123-45-6789.';
    const spans = detect(text, DEFAULT_DETECTORS);
    expect(spans.map((span) => [span.label, text.slice(span.start, span.end)])).toEqual([
      ['CARD', '4111 1111 1111 1111'],
      ['EMAIL', 'ada@example.org'],
      ['PHONE', '+1 415 555 2671'],
      ['IP', '10.0.0.1'],
      ['IBAN', 'DE89 3704 0044 0532 0130 00'],
      ['SSN', '123-45-6789'],
    ]);
  });

  describe('overlaps', () => {
    it('keeps the longest span, whichever detector is listed first', () => {
      const short = fixedDetector('short', DataClass.Sensitive, [[5, 10]]);
      const long = fixedDetector('long', DataClass.Pii, [[3, 15]]);
      expect(extents(detect('x'.repeat(20), [short, long]))).toEqual([['long', 3, 15]]);
      expect(extents(detect('x'.repeat(20), [long, short]))).toEqual([['long', 3, 15]]);
    });

    it('keeps the earlier of two overlapping spans of equal length', () => {
      const later = fixedDetector('later', DataClass.Pii, [[4, 10]]);
      const earlier = fixedDetector('earlier', DataClass.Pii, [[2, 8]]);
      expect(extents(detect('x'.repeat(20), [later, earlier]))).toEqual([['earlier', 2, 8]]);
    });

    it('settles an identical extent by the more sensitive class, then by detector order', () => {
      const pii = fixedDetector('pii', DataClass.Pii, [[0, 6]]);
      const sensitive = fixedDetector('sensitive', DataClass.Sensitive, [[0, 6]]);
      const other = fixedDetector('other', DataClass.Sensitive, [[0, 6]]);
      expect(extents(detect('x'.repeat(6), [pii, sensitive, other]))).toEqual([['sensitive', 0, 6]]);
      expect(extents(detect('x'.repeat(6), [pii, other, sensitive]))).toEqual([['other', 0, 6]]);
    });

    it('keeps adjacent and separate spans, and drops only the overlapped ones', () => {
      const first = fixedDetector('a', DataClass.Pii, [
        [0, 4],
        [4, 8],
        [20, 22],
      ]);
      const second = fixedDetector('b', DataClass.Pii, [
        [7, 12],
        [15, 30],
      ]);
      expect(extents(detect('x'.repeat(30), [first, second]))).toEqual([
        ['a', 0, 4],
        ['b', 7, 12],
        ['b', 15, 30],
      ]);
    });

    it('drops a card used as the local part of an e-mail address, which its own detector still reports', () => {
      const text = '4111111111111111@example.org';
      expect(detect(text, DEFAULT_DETECTORS).map((span) => span.label)).toEqual(['EMAIL']);
      expect(paymentCardDetector.detect(text)).toHaveLength(1);
    });
  });

  it('may find a value only once the value just before it is replaced, which a second pass catches', () => {
    // A single space joins the IBAN's last group and the card into one digit run, so the card is not read as a card.
    const text = 'DE89 3704 0044 0532 0130 00 4111 1111 1111 1111';
    expect(detect(text, DEFAULT_DETECTORS).map((span) => span.label)).toEqual(['IBAN']);
    const tokenized = new PlaceholderVault().tokenize(text, detect(text, DEFAULT_DETECTORS));
    expect(detect(tokenized, DEFAULT_DETECTORS).map((span) => span.label)).toEqual(['CARD']);
  });

  it('refuses text that is not a string and spans outside the text', () => {
    expect(() => detect(42 as unknown as string, DEFAULT_DETECTORS)).toThrow(DetectionInputError);
    expect(() => emailDetector.detect(undefined as unknown as string)).toThrow(DetectionInputError);
    expect(() => detect('short', [fixedDetector('broken', DataClass.Pii, [[2, 9]])])).toThrow(DetectionInputError);
  });

  it('shares no scan state between calls', () => {
    const text = 'a@example.org b@example.org';
    const first = emailDetector.detect(text);
    emailDetector.detect('c@example.org');
    expect(emailDetector.detect(text)).toEqual(first);
    expect(first).toHaveLength(2);
    expect(Object.isFrozen(emailDetector)).toBe(true);
    expect(Object.isFrozen(DEFAULT_DETECTORS)).toBe(true);
  });

  // Completion is the assertion: a pattern with catastrophic backtracking would not finish on these inputs.
  const fill = (unit: string) => unit.repeat(Math.ceil(100_000 / unit.length));
  it.each([
    ['letters', fill('a')],
    ['digits', fill('1')],
    ['spaced digits', fill('1 ')],
    ['dashed digits', fill('12-')],
    ['dotted digits', fill('1.')],
    ['colons', fill(':')],
    ['hex groups', fill('ffff:')],
    ['local parts', fill('a.') + '@'],
    ['a long domain', 'a@' + fill('b')],
    ['repeated at signs', fill('a@')],
    ['short domains', fill('a@a.')],
    ['plus signs', fill('+1 ')],
    ['area codes', fill('(12) ')],
    ['IBAN-like groups', fill('AB12 ')],
    ['dotted quads', fill('1.1.1.1')],
    ['almost-cards', fill('4111 1111 1111 111 ')],
  ])('scans 100 KB of %s without a false positive', (_case, text) => {
    expect(text.length).toBeGreaterThanOrEqual(100_000);
    expect(detect(text, DEFAULT_DETECTORS)).toEqual([]);
  });
});
