import { describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { chainHash, EvidenceKind } from '../evidence/chain-link.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { assertCanonicalJson, canonicalJson } from './canonical-json.js';
import { fingerprint } from './fingerprint.js';
import { flatCanonicalJson, isFlatCanonical, isFlatValue, shallowCanonicalJson } from './flat-canonical-json.js';

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

  it('gives each record of a sequence its own text: repeated values, a Date changed in place, a value refused later', () => {
    const at = new Date(0);
    const records = [
      { a: 'same', b: 1, at, c: null },
      { a: 'same', b: 2, at, c: 'x' },
      { a: 'same', b: 2, at, c: undefined },
      { a: 'same\uD800', b: 2, at, c: 'x' },
    ];
    const texts = records.map((record, i) => {
      if (i === 2) at.setTime(1_000);
      return flatCanonicalJson(record);
    });
    expect(texts).toEqual([
      '{"a":"same","at":"1970-01-01T00:00:00.000Z","b":1,"c":null}',
      '{"a":"same","at":"1970-01-01T00:00:00.000Z","b":2,"c":"x"}',
      '{"a":"same","at":"1970-01-01T00:00:01.000Z","b":2}',
      undefined,
    ]);
    fc.assert(
      // Few keys, so that shapes recur and values repeat from one record to the next.
      fc.property(fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c'), flatValue), { maxLength: 8 }), (sequence) => {
        for (const record of sequence) {
          const flat = flatCanonicalJson(record);
          if (flat !== undefined) expect(flat).toBe(canonicalJson(asJson(record)));
        }
      }),
      { numRuns: 300 },
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

describe('isFlatCanonical', () => {
  it('answers whether flatCanonicalJson takes each record of a sequence, repeated values and instants included', () => {
    fc.assert(
      // Few keys, so that shapes recur and values repeat from one record to the next.
      fc.property(fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c'), flatValue), { maxLength: 8 }), (sequence) => {
        for (const record of sequence) expect(isFlatCanonical(record)).toBe(flatCanonicalJson(record) !== undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('throws for an invalid instant, and judges an instant with its own text as flatCanonicalJson does', () => {
    expect(isFlatCanonical({ a: 'x', at: new Date(0) })).toBe(true);
    expect(() => isFlatCanonical({ a: 'x', at: new Date(Number.NaN) })).toThrow(RangeError);
    // A value seen flat before, then a lone surrogate under the same key: declined.
    expect(isFlatCanonical({ a: 'x\uD800', at: new Date(0) })).toBe(false);
    const odd = Object.assign(new Date(0), { toISOString: () => '\uD800' });
    expect(isFlatCanonical({ a: 'x', at: odd })).toBe(flatCanonicalJson({ a: 'x', at: odd }) !== undefined);
    expect(isFlatCanonical({ a: 'x', at: odd })).toBe(false);
  });
});

describe('isFlatValue', () => {
  it('takes what flatCanonicalJson writes as it is, and nothing else', () => {
    fc.assert(
      fc.property(flatValue, (value) => {
        expect(isFlatValue(value)).toBe(flatCanonicalJson({ value }) !== undefined);
      }),
      { numRuns: 1000 },
    );
    const invalid = new Date(Number.NaN);
    const claimsValid = Object.assign(new Date(Number.NaN), { getTime: () => 0 });
    const ownText = Object.assign(new Date(0), { toISOString: () => 'not an instant' });
    for (const value of [
      invalid,
      claimsValid,
      ownText,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      'x\uD800',
      { a: 1 },
      [1],
      1n,
    ])
      expect(isFlatValue(value)).toBe(false);
    for (const value of [new Date(0), 'x', -0, 0.5, true, null, undefined]) expect(isFlatValue(value)).toBe(true);
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

describe('shallowCanonicalJson', () => {
  /** What canonicalJson gives without any shortcut: the ADR 0002 check, then the RFC 8785 library. */
  const general = (value: unknown): string | undefined => {
    try {
      assertCanonicalJson(value);
    } catch (error) {
      if (!(error instanceof NonCanonicalValueError)) throw error;
      return undefined;
    }
    return canonicalize(value) as string;
  };
  const key = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('__proto__', 'constructor', '10', '9', 'toJSON'));
  const leaf = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date(),
    fc.constant([1]),
  );
  const inner = fc.dictionary(key, leaf, { maxKeys: 6 });
  const value = fc.oneof(
    fc.dictionary(key, fc.oneof(leaf, inner, fc.dictionary(key, inner, { maxKeys: 2 })), { maxKeys: 8 }),
    leaf,
  );

  it('gives the bytes the general path gives, or leaves the value to it (which then refuses what it refuses)', () => {
    fc.assert(
      fc.property(value, (candidate) => {
        const shallow = shallowCanonicalJson(candidate);
        const expected = general(candidate);
        if (expected === undefined) expect(shallow).toBeUndefined();
        else if (shallow !== undefined) expect(shallow).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes arguments and identities itself; leaves arrays, instants, undefined and deeper nesting to the general path', () => {
    expect(shallowCanonicalJson({ orderId: 1002 })).toBe('{"orderId":1002}');
    expect(shallowCanonicalJson({ capability: 'a', identity: { type: 'order', id: 1 } })).toBe(
      '{"capability":"a","identity":{"id":1,"type":"order"}}',
    );
    expect(shallowCanonicalJson({ ids: [1] })).toBeUndefined();
    expect(shallowCanonicalJson({ at: new Date(0) })).toBeUndefined();
    expect(shallowCanonicalJson({ a: undefined })).toBeUndefined();
    expect(shallowCanonicalJson({ a: { b: { c: 1 } } })).toBeUndefined();
    expect(() => canonicalJson({ a: undefined })).toThrow(NonCanonicalValueError);
  });
});
