import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fingerprintString } from './fingerprint.js';
import { identityFingerprint } from './identity-fingerprint.js';

describe('identityFingerprint', () => {
  it('is the fingerprint of the text, whether it was seen before, recently or long ago', () => {
    const texts = Array.from({ length: 3000 }, (_, i) => `customer:${i}`);
    for (const round of [1, 2])
      for (const text of texts) expect([round, identityFingerprint(text)]).toEqual([round, fingerprintString(text)]);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(identityFingerprint(text)).toBe(fingerprintString(text));
        expect(identityFingerprint(text)).toBe(fingerprintString(text));
      }),
      { numRuns: 500 },
    );
  });
});
