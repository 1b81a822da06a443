import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { emailDetector } from './email.detector.js';

const found = (text: string) => emailDetector.detect(text).map((span) => text.slice(span.start, span.end));

describe('emailDetector', () => {
  it('finds addresses inside sentences without their trailing punctuation', () => {
    expect(found('Write to ada@example.org.')).toEqual(['ada@example.org']);
    expect(found('(grace.hopper+navy@mail.example.co.uk), then ALAN_T@Example.COM; done')).toEqual([
      'grace.hopper+navy@mail.example.co.uk',
      'ALAN_T@Example.COM',
    ]);
    expect(found('"ada@example.org"? <bob-smith@sub-domain.example.net>!')).toEqual([
      'ada@example.org',
      'bob-smith@sub-domain.example.net',
    ]);
    expect(found('Contact:...ada@example.org...')).toEqual(['ada@example.org']);
  });

  it('reports offsets, label and class', () => {
    expect(emailDetector.detect('mail ada@example.org now')).toEqual([
      { detector: 'email', label: 'EMAIL', dataClass: DataClass.Pii, start: 5, end: 20 },
    ]);
  });

  it.each([
    ['no top-level domain', 'root@localhost'],
    ['a numeric top-level label', 'user@10.0.0.1'],
    ['a handle', '@ada on the forum'],
    ['an empty local part', 'x @example.org'],
    ['a dot at the end of the local part', 'ada.@example.org'],
    ['consecutive dots in the local part', 'ada..lovelace@example.org'],
    ['an empty domain label', 'ada@example..org'],
    ['a label starting with a dash', 'ada@-example.org'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@example.org`],
    ['two @ signs', 'ada@b@example.org'],
  ])('does not fire on %s', (_case, text) => {
    expect(found(text)).toEqual([]);
  });
});
