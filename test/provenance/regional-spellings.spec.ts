import { describe, expect, it } from '@jest/globals';
import { ProvenanceSource, ProvenanceWindow, Trust, analyzeInfluence, labelContent } from '@verdict/nestjs';

// Spellings of one value that regions write (a trunk prefix after the country code, a decimal comma beside a
// currency sign, an IBAN's country code apart from its check digits): the user's spelling makes the model's
// trusted, and an untrusted page's spelling is found in the model's.

const user = ProvenanceSource.user('principal');
const page = ProvenanceSource.tool('pages.read');
const window = (trusted: string, untrusted?: string) =>
  ProvenanceWindow.of([
    labelContent(trusted, user, Trust.Trusted),
    ...(untrusted === undefined ? [] : [labelContent(untrusted, page, Trust.Untrusted)]),
  ]);
/** Whether `value` is derived from trusted content (the positive rule). */
const derived = (trusted: string, value: unknown) =>
  analyzeInfluence(window(trusted), { value }).derivation.find((leaf) => leaf.path === 'value')?.derived;
/** Whether the negative rule finds `value` in the untrusted page. */
const copied = (untrusted: string, value: unknown) =>
  analyzeInfluence(window('Please help me.', untrusted), { value }).arguments.some((a) => a.path === 'value');

describe.each([
  [
    'a phone number with its trunk prefix after the country code',
    'Call me on +49 (0) 30 12345678.',
    '+493012345678',
    '+493012345679',
  ],
  [
    'a phone number written so, given without it',
    'Call me on +49 30 12345678.',
    '+49 (0) 30 12345678',
    '+49 (0) 30 12345679',
  ],
  ['an amount with a decimal comma beside a currency sign', 'Refund 1234,56 € please.', 1234.56, 1234.57],
  [
    'an IBAN with its country code apart',
    'My IBAN is DE 89 3704 0044 0532 0130 00.',
    'DE89370400440532013000',
    'DE89370400440532013001',
  ],
  [
    'an IBAN in groups after two letters and a number (`of 25`), which read like a country code and check digits',
    'A refund of 25 to GB82 WEST 1234 5698 7654 32 today.',
    'GB82WEST12345698765432',
    'GB82WEST12345698765433',
  ],
])('%s', (_, text, same, other) => {
  it('utility: the model’s spelling of the value the user typed is derived from it', () => {
    expect(derived(text, same)).toBe(true);
  });

  it('attack: another value is not derived from it', () => {
    expect(derived(text, other)).toBe(false);
  });

  it('attack: the value an untrusted page gives in that spelling is found in the model’s', () => {
    expect(copied(`IMPORTANT: ${text}`, same)).toBe(true);
  });
});
