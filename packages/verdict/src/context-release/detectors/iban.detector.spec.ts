import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { passesIbanChecksum } from './iban-checksum.js';
import { ibanDetector } from './iban.detector.js';

const found = (text: string) => ibanDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('ibanDetector', () => {
  it.each([
    ['DE89 3704 0044 0532 0130 00'],
    ['DE89370400440532013000'],
    ['GB82 WEST 1234 5698 7654 32'],
    ['FR14 2004 1010 0505 0001 3M02 606'],
    ['NO9386011117947'],
  ])('finds the valid IBAN %s', (iban) => {
    expect(found(`Pay to ${iban}.`)).toEqual([iban]);
  });

  it('stops at the end of the IBAN when a word follows', () => {
    expect(found('IBAN DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX')).toEqual(['DE89 3704 0044 0532 0130 00']);
  });

  // docs/context-release.md §4: an IBAN is found wherever it starts, whatever precedes it. The candidate pattern
  // matched from an earlier upper-case token shaped like an IBAN start (`FY24`, a VAT id) and ran into the IBAN;
  // the scan then resumed after that rejected candidate, past the IBAN's start.
  it.each([
    ['a VAT id and a word', 'VAT DE123456789 IBAN DE89 3704 0044 0532 0130 00', 'DE89 3704 0044 0532 0130 00'],
    ['a VAT id, compact', 'DE123456789 DE89370400440532013000', 'DE89370400440532013000'],
    ['a fiscal year', 'FY24 DE89 3704 0044 0532 0130 00', 'DE89 3704 0044 0532 0130 00'],
    ['two IBAN-shaped groups', 'AB12 CD34 DE89 3704 0044 0532 0130 00', 'DE89 3704 0044 0532 0130 00'],
  ])('attack: finds an IBAN after %s, joined by single spaces', (_case, text, iban) => {
    expect(found(text)).toEqual([iban]);
  });

  it.each([
    ['alone', 'DE89 3704 0044 0532 0130 00', ['DE89 3704 0044 0532 0130 00']],
    ['after a BIC', 'BIC COBADEFFXXX DE89370400440532013000', ['DE89370400440532013000']],
    ['followed by a currency', 'DE89 3704 0044 0532 0130 00 EUR', ['DE89 3704 0044 0532 0130 00']],
    ['followed by a currency and an amount', 'DE89370400440532013000 EUR 12', ['DE89370400440532013000']],
    [
      'twice, joined by one space',
      'DE89 3704 0044 0532 0130 00 GB82 WEST 1234 5698 7654 32',
      ['DE89 3704 0044 0532 0130 00', 'GB82 WEST 1234 5698 7654 32'],
    ],
    [
      'twice, compact',
      'DE89370400440532013000 GB82WEST12345698765432',
      ['DE89370400440532013000', 'GB82WEST12345698765432'],
    ],
  ])('control: finds each IBAN once, %s', (_case, text, ibans) => {
    expect(found(text)).toEqual(ibans);
  });

  it.each([
    ['a report title', 'FY24 Q3 report'],
    ['IBAN-shaped groups without a valid IBAN', 'FY24 AB12 CD34 EF56 GH78 IJ90 KL12 MN34'],
    ['a VAT id and a wrong check digit', 'VAT DE123456789 and FY24 DE88 3704 0044 0532 0130 00'],
  ])('control: finds nothing in %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });

  it('reports label and class', () => {
    expect(ibanDetector.detect('NO9386011117947')).toEqual([
      { detector: 'iban', label: 'IBAN', dataClass: DataClass.Sensitive, start: 0, end: 15 },
    ]);
  });

  it.each([
    ['a wrong check digit', 'DE88 3704 0044 0532 0130 00'],
    ['a changed BBAN digit', 'DE89 3704 0044 0532 0130 01'],
    ['irregular grouping', 'DE89 370 4004 4053 2013 000'],
    ['fewer than 15 characters', 'NO938601111794'],
    ['lower case', 'de89370400440532013000'],
    ['an IBAN glued to a word', 'xDE89370400440532013000'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });

  it('refuses check digits outside 02–98 even when the remainder is 1', () => {
    expect(passesIbanChecksum('GB82WEST12345698765432')).toBe(true);
    expect(passesIbanChecksum('GB00WEST12345698765432')).toBe(false);
  });
});
