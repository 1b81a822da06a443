import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJson } from './canonical-json.js';
import { fingerprint, fingerprintString } from './fingerprint.js';

// Vectors computed outside this code base (`printf '%s' ... | sha256sum`) and the RFC 8785 §3.2.2 sample.
const RFC_8785_SAMPLE_INPUT = JSON.parse(
  '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
);
const RFC_8785_SAMPLE_OUTPUT =
  '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';

describe('fingerprints', () => {
  describe('canonicalJson', () => {
    it('serializes the RFC 8785 sample exactly', () => {
      expect(canonicalJson(RFC_8785_SAMPLE_INPUT)).toBe(RFC_8785_SAMPLE_OUTPUT);
    });

    it('orders keys so that key order never changes a fingerprint', () => {
      expect(fingerprint({ b: 1, a: 2 })).toBe(fingerprint({ a: 2, b: 1 }));
    });
  });

  describe('fingerprint', () => {
    it.each([
      [{ a: 2, b: 1 }, 'd3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772'],
      [
        {
          target_policy: 'order-primary-key',
          identity: { type: 'order', tenant: 'acme', id: 1001 },
          capability: 'orders.view',
        },
        'daa85ae1901373fefc7c94c707b0a0dc59a7d42bc897c70a251383478029a738',
      ],
      [RFC_8785_SAMPLE_INPUT, '2d5e01a318d0f0879ab568c4be289c8b1f64ef8921a53c6277d5e069978baacb'],
    ])('pins the SHA-256 of canonical JSON (%#)', (value, expected) => {
      expect(fingerprint(value)).toBe(expected);
    });

    it('refuses a text that is not a string: a number would hash as the empty string, every one alike', () => {
      for (const value of [42, 7, undefined, null, { length: 3 }, ['a']])
        expect(() => fingerprintString(value as unknown as string)).toThrow(TypeError);
      expect(fingerprintString('42')).not.toBe(fingerprintString('')); // control
    });

    it('hashes raw strings such as tool-call ids directly', () => {
      expect(fingerprintString('call_abc123')).toBe('3d62e741fff284a85680946d79e7eb46d77c57d62ed12a76052ec09014fabfe1');
    });

    it('hashes a long string in slices to the digest of the whole, surrogate pairs and lone halves included', () => {
      const whole = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
      const pair = '😀';
      for (const text of [
        'kettle '.repeat(40_000),
        'a'.repeat(65_535) + pair + 'b'.repeat(70_000),
        'a'.repeat(65_535) + '\ud83d' + 'b'.repeat(70_000),
        pair.repeat(70_000),
        'é'.repeat(200_000) + '\udc00',
      ])
        expect(fingerprintString(text)).toBe(whole(text));
    });

    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    class Money {
      amount = 1;
    }
    it.each([
      ['a cycle', cyclic, '$.self'],
      ['undefined', { a: undefined }, '$.a'],
      ['a function', { f: () => 1 }, '$.f'],
      ['a symbol', [Symbol('s')], '$[0]'],
      ['a BigInt', { n: 10n }, '$.n'],
      ['NaN', { n: NaN }, '$.n'],
      ['Infinity', { n: [1, Infinity] }, '$.n[1]'],
      ['-Infinity', -Infinity, '$'],
      ['a Date', { at: new Date(0) }, '$.at'],
      ['a class instance', { price: new Money() }, '$.price'],
      ['a lone high surrogate', { s: 'a\uD800b' }, '$.s'],
      ['a lone low surrogate in a key', { ['\uDC00']: 1 }, '$["\\udc00"]'],
      ['the key __proto__', JSON.parse('{"x":{"__proto__":{"admin":true}}}'), '$.x.__proto__'],
      ['the key constructor', { constructor: 1 }, '$.constructor'],
      ['the key prototype', { deep: [{ prototype: {} }] }, '$.deep[0].prototype'],
      ['a sparse array', { list: [1, , 3] }, '$.list[1]'],
      ['symbol keys', { [Symbol('k')]: 1 }, '$'],
    ])('rejects %s with a typed error naming the path', (_name, value, path) => {
      const attempt = () => fingerprint(value);
      expect(attempt).toThrow(NonCanonicalValueError);
      try {
        attempt();
      } catch (error) {
        expect((error as NonCanonicalValueError).path).toBe(path);
      }
    });

    it('accepts a surrogate pair and a null-prototype object', () => {
      const bare = Object.assign(Object.create(null) as object, { smile: '😀' });
      expect(fingerprint(bare)).toBe(fingerprint({ smile: '😀' }));
    });

    it('rejects nesting deeper than the limit with a typed error instead of overflowing the stack', () => {
      let deep: unknown = 'leaf';
      for (let i = 0; i < 100_000; i++) deep = [deep];
      expect(() => fingerprint(deep)).toThrow(NonCanonicalValueError);
    });
  });
});
