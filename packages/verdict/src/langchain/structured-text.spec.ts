import { describe, expect, it } from '@jest/globals';
import { containsStructure, isJsonDocument, visibleText } from './structured-text.js';

describe('structured text', () => {
  it('removes Unicode format characters, and nothing else', () => {
    expect(visibleText('\u200Ba\u2060b\uFEFFc\u00ADd e')).toBe('abcd e');
  });

  it.each([
    ['a record after a prose prefix', 'Noted: {"email": "a@b.example"}'],
    ['an unquoted key', 'see {email: a@b.example}'],
    ['a single-quoted key', "{'email': 'a@b.example'}"],
    ['an unterminated object', 'Customer: {"email": "a@b.example", "card": "4111'],
    ['an array of strings after numbers', 'ids [1, 2, "a@b.example"]'],
    ['a nested array', '[[1, 2]]'],
    ['a key behind a zero-width space', '{\u200B"email": 1}'],
  ])('finds structure in %s', (_case, text) => {
    expect(containsStructure(text)).toBe(true);
  });

  it.each([
    ['prose', 'Your parcel left on Monday.'],
    ['a citation', 'Your parcel left on Monday [1].'],
    ['several citations', 'See [1, 2] and [3].'],
    ['braces without a member', 'My order {1002} is late, {} is empty'],
  ])('finds none in %s', (_case, text) => {
    expect(containsStructure(text)).toBe(false);
  });

  it('takes a whole JSON object or array as a document, after format characters and whitespace, not prose around one', () => {
    expect(isJsonDocument(' \u200B{"a": 1} ')).toBe(true);
    expect(isJsonDocument('[1]')).toBe(true);
    expect(isJsonDocument('Context: {"a": 1}')).toBe(false);
    expect(isJsonDocument('{not json}')).toBe(false);
  });
});
