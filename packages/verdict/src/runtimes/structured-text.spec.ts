import { describe, expect, it } from '@jest/globals';
import {
  containsStructure,
  hasFormatCharacters,
  hidesEncodedData,
  inspectedText,
  isJsonDocument,
} from './structured-text.js';

const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');

describe('structured text', () => {
  it('inspects text without control, format, combining and filler characters, NFKC-normalized', () => {
    expect(inspectedText('\u200Ba\u2060b\uFEFFc\u00ADd e\u3164\u0001f\u034F\tg\n')).toBe('abcd ef\tg\n');
    expect(inspectedText('\uFF5B\uFF02a\uFF02\uFF1A1\uFF5D')).toBe('{"a":1}');
  });

  it.each([
    ['a record after a prose prefix', 'Noted: {"email": "a@b.example"}'],
    ['an unquoted key', 'see {email: a@b.example}'],
    ['a single-quoted key', "{'email': 'a@b.example'}"],
    ['an unterminated object', 'Customer: {"email": "a@b.example", "card": "4111'],
    ['an array of strings after numbers', 'ids [1, 2, "a@b.example"]'],
    ['a nested array', '[[1, 2]]'],
    ['a key behind a zero-width space', '{\u200B"email": 1}'],
    ...['\uFE0F', '\u034F', '\u0001', '\u3164', '\u115F', '\u1160', '\uFFA0', '\u2800'].map(
      (filler) =>
        [
          `a key behind U+${filler.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
          `{${filler}"email": 1}`,
        ] as [string, string],
    ),
    ['fullwidth braces and quotes', '\uFF5B\uFF02email\uFF02\uFF1A 1\uFF5D'],
    ['an array opening with null', '[null, "a@b.example"]'],
    ['an array opening with true', '[true, {"a": 1}]'],
    ['an array of literals', '[false, true]'],
    ['an array of char codes', '[99, 117, 115, 116, 111]'],
    ['a block comment before the key', '{/* c */ "email": "a@b.example"}'],
    ['a line comment before the key', '{\n// c\n"email": "a@b.example"}'],
    ['YAML', 'email: a@b.example\ncard: 4111'],
    ['nested YAML', 'customer:\n  email: a@b.example'],
    ['a Python dict', "dict(email='a@b.example')"],
    ['a constructor with keyword arguments', "Customer( email = 'a@b.example')"],
  ])('finds structure in %s', (_case, text) => {
    expect(containsStructure(text)).toBe(true);
  });

  it.each([
    ['prose', 'Your parcel left on Monday.'],
    ['a citation', 'Your parcel left on Monday [1].'],
    ['several citations', 'See [1, 2] and [3], also [2-4].'],
    ['braces without a member', 'My order {1002} is late, {} is empty'],
    ['one label line', 'Note: your parcel left on Monday.\nIt should arrive soon.'],
    ['a numbered list', 'Step 1: open the box\nStep 2: check the label'],
    ['a comparison in parentheses', 'Refunds (when a == b) are rare.'],
  ])('finds none in %s', (_case, text) => {
    expect(containsStructure(text)).toBe(false);
  });

  it('takes a whole JSON object or array as a document, after invisible characters and whitespace, or in a fenced block; not prose around one', () => {
    expect(isJsonDocument(' \u200B{"a": 1} ')).toBe(true);
    expect(isJsonDocument('\u3164{"a": 1}')).toBe(true);
    expect(isJsonDocument('[1]')).toBe(true);
    expect(isJsonDocument('Here:\n```json\n{"a": 1}\n```\nthanks')).toBe(true);
    expect(isJsonDocument('Context: {"a": 1}')).toBe(false);
    expect(isJsonDocument('{not json}')).toBe(false);
    expect(isJsonDocument('Why?\n```js\nconst a = { b: 1 };\n```')).toBe(false);
  });

  it('finds hidden encodings: TAG characters outside a flag, runs of variation selectors', () => {
    expect(hidesEncodedData(`Hi${tags('{"a":1}')}`)).toBe(true);
    expect(hidesEncodedData(tags('x'))).toBe(true);
    expect(hidesEncodedData('\u{1F600}\u{E0100}\u{E0101}')).toBe(true);
    expect(hidesEncodedData('\uFE0F\uFE0F')).toBe(true);
    expect(hidesEncodedData(`Scotland \u{1F3F4}${tags('gbsct')}\u{E007F}`)).toBe(false);
    expect(hidesEncodedData('heart \u2764\uFE0F, \u845B\u{E0100}')).toBe(false);
  });

  it('finds format characters but joiners between letters or emoji', () => {
    for (const text of ['Noted.\u200B', '\uFEFFHi', 'a\u00ADb', 'a\u200D', '\u200Cb', 'a \u200D b', 'x\u2060y'])
      expect(hasFormatCharacters(text)).toBe(true);
    for (const text of [
      'plain',
      '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
      'می\u200Cخواهم',
      '\u2764\uFE0F\u200D\u{1F525}',
    ])
      expect(hasFormatCharacters(text)).toBe(false);
  });
});
