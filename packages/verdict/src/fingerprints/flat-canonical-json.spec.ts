import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { chainHash, EvidenceKind } from '../evidence/chain-link.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJson } from './canonical-json.js';
import { fingerprint } from './fingerprint.js';
import { flatCanonicalJson } from './flat-canonical-json.js';

/** The record as the general path canonicalizes it: instants as ISO text, `undefined` dropped. */
const asJson = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(record)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );

const flatValue = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ min: new Date(0), max: new Date(8.64e15), noInvalidDate: true }),
);
const flatRecord = fc.dictionary(fc.string({ unit: 'binary' }), flatValue, { maxKeys: 30 });
const previousHash = fc.stringMatching(/^[0-9a-f]{64}$/);

describe('flatCanonicalJson', () => {
  it('gives the bytes canonicalJson gives for any flat record, or leaves it to the general path', () => {
    fc.assert(
      fc.property(flatRecord, (record) => {
        const flat = flatCanonicalJson(record);
        let general: string | undefined;
        try {
          general = canonicalJson(asJson(record));
        } catch (error) {
          if (!(error instanceof NonCanonicalValueError)) throw error;
        }
        // Whatever the general path refuses, the flat path declines too (so the caller still throws).
        if (general === undefined) expect(flat).toBeUndefined();
        else if (flat !== undefined) expect(flat).toBe(general);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes ordinary records itself, and declines nested values, lone surrogates and refused keys', () => {
    expect(flatCanonicalJson({ b: 1, a: new Date(0), c: null, d: undefined })).toBe(
      '{"a":"1970-01-01T00:00:00.000Z","b":1,"c":null}',
    );
    expect(flatCanonicalJson({ a: { nested: 1 } })).toBeUndefined();
    expect(flatCanonicalJson({ a: '\uD800' })).toBeUndefined();
    expect(flatCanonicalJson(JSON.parse('{"__proto__":1}'))).toBeUndefined();
  });
});

describe('chainHash', () => {
  it('is the SHA-256 of the canonical JSON of kind, sequence, previous hash and record, for any flat record', () => {
    fc.assert(
      fc.property(flatRecord, fc.nat(), previousHash, (record, sequence, previous) => {
        let expected: string | undefined;
        try {
          expected = fingerprint({
            kind: EvidenceKind.Decision,
            sequence,
            previousHash: previous,
            record: asJson(record),
          });
        } catch (error) {
          if (!(error instanceof NonCanonicalValueError)) throw error;
        }
        const hash = () => chainHash(EvidenceKind.Decision, record, { sequence, previousHash: previous });
        if (expected === undefined) expect(hash).toThrow(NonCanonicalValueError);
        else expect(hash()).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
