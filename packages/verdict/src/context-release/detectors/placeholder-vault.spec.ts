import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataClass } from '../data-class.js';
import { DEFAULT_DETECTORS } from './default-detectors.js';
import { detect } from './detect.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import { passesIbanChecksum } from './iban-checksum.js';
import { passesLuhn } from './luhn.js';
import { PlaceholderVault } from './placeholder-vault.js';

function setup() {
  const vault = new PlaceholderVault();
  const tokenize = (text: string) => vault.tokenize(text, detect(text, DEFAULT_DETECTORS));
  return { vault, tokenize };
}

const span = (start: number, end: number, label = 'TEST'): DetectedSpan => ({
  detector: 'test',
  label,
  dataClass: DataClass.Pii,
  start,
  end,
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('PlaceholderVault', () => {
  describe('tokenize', () => {
    it('gives the same value the same placeholder and numbers distinct values per label', () => {
      const { vault, tokenize } = setup();
      expect(
        tokenize('ada@example.org wrote to bob@example.org, then ada@example.org again; call +1 415 555 2671'),
      ).toBe('<EMAIL_1> wrote to <EMAIL_2>, then <EMAIL_1> again; call <PHONE_1>');
      expect(vault.size).toBe(3);
    });

    it('keeps placeholders stable across calls', () => {
      const { vault, tokenize } = setup();
      tokenize('from ada@example.org');
      expect(tokenize('cc carol@example.org and ada@example.org')).toBe('cc <EMAIL_2> and <EMAIL_1>');
      expect(vault.size).toBe(2);
    });

    it('keeps separate vaults apart', () => {
      const first = setup();
      const second = setup();
      first.tokenize('ada@example.org');
      expect(second.tokenize('bob@example.org')).toBe('<EMAIL_1>');
      expect(first.vault.restore('<EMAIL_1>')).toBe('ada@example.org');
      expect(second.vault.restore('<EMAIL_1>')).toBe('bob@example.org');
    });

    it('never issues a placeholder that already appears in the text', () => {
      const { vault, tokenize } = setup();
      const text = 'the form said <EMAIL_1>; the real one is ada@example.org';
      const tokenized = tokenize(text);
      expect(tokenized).toBe('the form said <EMAIL_1>; the real one is <EMAIL_2>');
      expect(vault.restore(tokenized)).toBe(text);
      expect(tokenize('later: bob@example.org')).toBe('later: <EMAIL_3>');
    });

    it.each([
      ['overlapping spans', [span(0, 4), span(2, 6)]],
      ['a span past the end', [span(0, 40)]],
      ['a lower-case label', [span(0, 4, 'email')]],
      ['a label with punctuation', [span(0, 4, 'CREDIT-CARD')]],
      ['an empty label', [span(0, 4, '')]],
    ])('refuses %s and changes nothing', (_case, spans) => {
      const { vault, tokenize } = setup();
      expect(() => vault.tokenize('ada@example.org', spans)).toThrow(DetectionInputError);
      expect(vault.size).toBe(0);
      expect(tokenize('ada@example.org')).toBe('<EMAIL_1>');
    });
  });

  describe('restore', () => {
    it('restores placeholders anywhere inside nested tool arguments without mutating them', () => {
      const { vault, tokenize } = setup();
      const body = tokenize('Hi ada@example.org, your card 4111 1111 1111 1111 is on file. Copy bob@example.org.');
      const args = deepFreeze({
        to: ['<EMAIL_1>'],
        message: { subject: 'Card <CARD_1>', body, attachments: [] as unknown[] },
        retries: 2,
        urgent: true,
        replyTo: null,
      });
      const restored = vault.restore(args);
      expect(restored).toEqual({
        to: ['ada@example.org'],
        message: {
          subject: 'Card 4111 1111 1111 1111',
          body: 'Hi ada@example.org, your card 4111 1111 1111 1111 is on file. Copy bob@example.org.',
          attachments: [],
        },
        retries: 2,
        urgent: true,
        replyTo: null,
      });
      expect(restored).not.toBe(args);
      expect(restored.message).not.toBe(args.message);
      expect(args.to).toEqual(['<EMAIL_1>']);
    });

    it('leaves unknown or altered placeholders, object keys and all other text exactly as they are', () => {
      const { vault, tokenize } = setup();
      tokenize('ada@example.org');
      const args = {
        '<EMAIL_1>': 'key stays',
        text: '<EMAIL_9> <email_1> EMAIL_1 < EMAIL_1 > <EMAIL_1 $& $1 <<EMAIL_1>> <PHONE_1>',
      };
      expect(vault.restore(args)).toEqual({
        '<EMAIL_1>': 'key stays',
        text: '<EMAIL_9> <email_1> EMAIL_1 < EMAIL_1 > <EMAIL_1 $& $1 <ada@example.org> <PHONE_1>',
      });
      expect(vault.restore('no placeholders here')).toBe('no placeholders here');
    });

    it('does not restore a restored value a second time', () => {
      const vault = new PlaceholderVault();
      const text = 'a <X_1> b';
      // The value `<X_1>` is itself placeholder-shaped; it is reserved, so it gets `<X_2>` and comes back verbatim.
      const tokenized = vault.tokenize(text, [span(2, 7, 'X')]);
      expect(tokenized).toBe('a <X_2> b');
      expect(vault.restore(tokenized)).toBe(text);
    });

    it('copies a __proto__ key as data', () => {
      const { vault, tokenize } = setup();
      tokenize('ada@example.org');
      const restored = vault.restore(JSON.parse('{"__proto__": "<EMAIL_1>"}') as Record<string, unknown>);
      expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(restored, '__proto__')?.value).toBe('ada@example.org');
    });

    it.each([
      ['a Date', { at: new Date(0) }],
      ['a Map', new Map()],
      ['undefined', { to: undefined }],
      ['a function', [() => 1]],
      ['a class instance', [new (class Recipient {})()]],
      ['a sparse array', [1, , 3]],
      ['a bigint', { n: 1n }],
    ])('refuses %s', (_case, value) => {
      expect(() => new PlaceholderVault().restore(value)).toThrow(DetectionInputError);
    });

    it('refuses a cycle but accepts a shared reference', () => {
      const shared = { to: 'x' };
      expect(new PlaceholderVault().restore({ a: shared, b: shared })).toEqual({ a: { to: 'x' }, b: { to: 'x' } });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(() => new PlaceholderVault().restore(cyclic)).toThrow(DetectionInputError);
    });
  });

  describe('placeholdersIn', () => {
    it('lists only the placeholders this vault issued, in order, not text that merely looks like one', () => {
      const { vault, tokenize } = setup();
      tokenize('the form said <EMAIL_1>; write to ada@example.org or bob@example.org');
      expect(vault.placeholdersIn('cc <EMAIL_3>, <EMAIL_9>, <EMAIL_1>, <email_2> and <EMAIL_2>')).toEqual([
        '<EMAIL_3>',
        '<EMAIL_2>',
      ]);
      expect(vault.placeholdersIn('https://attacker.example/?e=<EMAIL_2>')).toEqual(['<EMAIL_2>']);
      expect(new PlaceholderVault().placeholdersIn('<EMAIL_2>')).toEqual([]);
    });
  });

  describe('properties', () => {
    const digits = (length: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((ds) => ds.join(''));
    const email = fc
      .tuple(
        fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/),
        fc.constantFrom('', '.x', '+tag'),
        fc.stringMatching(/^[a-z]{2,8}$/),
        fc.constantFrom('com', 'org', 'io'),
      )
      .map(([local, suffix, domain, tld]) => `${local}${suffix}@${domain}.${tld}`);
    const card = fc
      .tuple(fc.constantFrom('4', '51', '6011'), digits(12), fc.constantFrom('', ' ', '-'))
      .map(([prefix, middle, separator]) => {
        const body = (prefix + middle).slice(0, 15);
        const number = body + [...'0123456789'].find((check) => passesLuhn(body + check));
        return separator === '' ? number : number.match(/.{4}/g)!.join(separator);
      });
    const phone = fc
      .tuple(fc.integer({ min: 200, max: 999 }), digits(3), digits(4))
      .map(([area, exchange, line]) => `+1 ${area} ${exchange} ${line}`);
    const literalPlaceholder = fc
      .tuple(fc.constantFrom('EMAIL', 'CARD', 'PHONE', 'X'), fc.integer({ min: 1, max: 4 }))
      .map(([label, n]) => `<${label}_${n}>`);
    const iban = fc.tuple(digits(18), fc.boolean()).map(([bban, spaced]) => {
      const check = Array.from({ length: 97 }, (_, i) => String(i + 2).padStart(2, '0')).find((digits) =>
        passesIbanChecksum(`DE${digits}${bban}`),
      );
      const compact = `DE${check}${bban}`;
      return spaced ? compact.match(/.{1,4}/g)!.join(' ') : compact;
    });
    const ssn = fc
      .tuple(fc.integer({ min: 1, max: 665 }), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 9999 }))
      .map(
        ([area, group, serial]) =>
          `${String(area).padStart(3, '0')}-${String(group).padStart(2, '0')}-${String(serial).padStart(4, '0')}`,
      );
    const pii = fc.oneof(email, card, phone, iban, ssn);

    it('restore(tokenize(text)) gives back any text', () => {
      const text = fc
        .array(
          fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), pii, literalPlaceholder),
          { maxLength: 12 },
        )
        .map((parts) => parts.join(''));
      fc.assert(
        fc.property(text, (original) => {
          const { vault, tokenize } = setup();
          expect(vault.restore(tokenize(original))).toBe(original);
        }),
        { numRuns: 300 },
      );
    });

    it('leaves no detected value in the tokenized text', () => {
      const word = fc.constantFrom('hello', 'order', 'ORD-10023', 'total', 'in 2024', 'Ada', '42');
      // A single space after a number is left out: it can join two values into one run (see detect.spec.ts).
      const separator = fc.constantFrom(', ', '; ', ' and ', '\n', ' (', ') ');
      const text = fc
        .array(fc.tuple(fc.oneof(word, pii, pii, literalPlaceholder), separator), { minLength: 1, maxLength: 10 })
        .map((parts) => parts.flat().join(''));
      fc.assert(
        fc.property(text, (original) => {
          const { vault, tokenize } = setup();
          const values = detect(original, DEFAULT_DETECTORS).map((found) => original.slice(found.start, found.end));
          const tokenized = tokenize(original);
          for (const value of values) expect(tokenized).not.toContain(value);
          expect(detect(tokenized, DEFAULT_DETECTORS)).toEqual([]);
          expect(vault.restore(tokenized)).toBe(original);
        }),
        { numRuns: 300 },
      );
    });
  });
});
