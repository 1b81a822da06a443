import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { usSsnDetector } from './us-ssn.detector.js';

const found = (text: string) => usSsnDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('usSsnDetector', () => {
  it('finds a dashed SSN in a sentence', () => {
    expect(found('SSN 123-45-6789, born 1970.')).toEqual(['123-45-6789']);
    expect(usSsnDetector.detect('078-05-1120')).toEqual([
      { detector: 'us-ssn', label: 'SSN', dataClass: DataClass.Sensitive, start: 0, end: 11 },
    ]);
  });

  it.each([
    ['area 000', '000-12-3456'],
    ['area 666', '666-12-3456'],
    ['area 900', '900-12-3456'],
    ['area 999', '999-12-3456'],
    ['group 00', '123-00-4567'],
    ['serial 0000', '123-45-0000'],
    ['an undashed number', '123456789'],
    ['a longer dashed number', '1-123-45-6789'],
    ['a trailing dashed group', '123-45-6789-1'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });
});
