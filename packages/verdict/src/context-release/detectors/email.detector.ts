import { DataClass } from '../data-class.js';
import { candidateDetector, type SpanBounds } from './candidate-detector.js';
import type { PiiDetector } from './pii-detector.interface.js';

// A local part (at most 64 characters, starting where no local-part character precedes it), `@`, then a run of domain
// characters (at most 253). The structure is checked in code, which keeps the pattern free of nested quantifiers.
const CANDIDATE = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL = /^[A-Za-z]{2,63}$/;

function checkEmail(match: RegExpExecArray, text: string): SpanBounds | undefined {
  const candidate = match[0];
  const end = match.index + candidate.length;
  if (DOMAIN_CHAR.test(text.charAt(end))) return undefined; // the domain ran past 253 characters
  const at = candidate.indexOf('@');
  // Dots around the address are punctuation: an ellipsis before it, a full stop after it.
  const leadingDots = candidate.length - candidate.replace(/^\.+/, '').length;
  const local = candidate.slice(leadingDots, at);
  const domain = candidate.slice(at + 1).replace(/[.-]+$/, '');
  if (local === '' || local.endsWith('.') || local.includes('..')) return undefined;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || !TOP_LEVEL.test(labels[labels.length - 1]))
    return undefined;
  return { start: match.index + leadingDots, end: match.index + at + 1 + domain.length };
}

/**
 * E-mail addresses, pragmatically: `local@domain.tld` with an ASCII dot-atom local part (letters, digits, `. _ % + -`,
 * at most 64 characters) and a domain of at least two labels ending in an alphabetic top-level label. Trailing sentence
 * punctuation is not part of the address. Quoted local parts, IP-literal domains and non-ASCII addresses are not found.
 * Class {@link DataClass.Pii}, label `EMAIL`.
 */
export const emailDetector: PiiDetector = candidateDetector(
  'email',
  'EMAIL',
  DataClass.Pii,
  CANDIDATE,
  checkEmail,
  (text) => text.includes('@'),
  // A run with two `@` signs holds no address (`ada@b@example.org`): the domain of a rejected candidate never starts
  // another one, and no other position inside it can (its characters are all local-part characters).
  (match) => match.index + match[0].length,
);
