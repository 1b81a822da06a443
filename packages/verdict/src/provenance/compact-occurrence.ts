import type { ArgumentCandidate, ArgumentLeaf } from './argument-candidates.js';
import { MIN_CANDIDATE_LENGTH, valueTokens } from './argument-candidates.js';
import type { LabelledContent } from './labelled-content.js';
import type { ProvenanceLabel } from './provenance-label.js';
import { phoneForms } from './phone-forms.js';

/**
 * Compact tokens have eight letters or digits or more: shorter ones turn up by chance where the words of a body
 * run together once their spaces are gone (`top 10 list` holds `top10`).
 */
export const MIN_COMPACT_LENGTH = 8;
/** The length of the prefix a compact token is indexed by. */
const KEY = MIN_CANDIDATE_LENGTH;
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/** One value-like token of an untrusted item: its canonical spelling and its compact form. */
interface CompactToken {
  readonly token: Pick<ArgumentCandidate, 'needle' | 'phone'>;
  readonly compact: string;
}

/** The compact tokens of each untrusted item, by the prefix of their compact form: built once per item. */
const indexes = new WeakMap<LabelledContent, ReadonlyMap<string, readonly CompactToken[]>>();

/**
 * Canonical text (`canonicalForm`) without anything but letters and digits: how a value cut in two, spaced out or
 * dashed (`secure-sy stems-252.com`, `s-e-c-u-r-e`) still reads inside free text.
 *
 * @example compactForm('www.secure-sy stems-252.com') === 'wwwsecuresystems252com'
 */
export function compactForm(canonical: string): string {
  return canonical.replace(SEPARATORS, '');
}

/**
 * The reverse check of the negative rule: each value-like token of untrusted content (`valueTokens`: e-mail
 * addresses, URLs and hosts, IBANs, phone numbers, identifiers) is looked for, in compact form, inside the
 * compact form of the call's string and number arguments, one after another: inside one argument, or cut across two
 * (`subject` ends `www.secure-sy`, `body` begins `stems-252.com`). A hit whose token occurs in no trusted content
 * (`inTrusted`, asked with the item that holds the token: a part of a longer token the user gave is theirs) is
 * influence on each argument it covers that is not itself trusted content, noted with the item's label and the
 * token (in canonical form) as untrusted content holds it: the first token found in each item, or with `every`, each
 * one. The tokens are indexed once per item; a proposal then costs one lookup per character of its arguments.
 *
 * @example compactOccurrences(untrusted, argumentLeaves(args), inTrusted, note)
 */
export function compactOccurrences(
  untrusted: readonly LabelledContent[],
  leaves: readonly ArgumentLeaf[],
  inTrusted: (value: Pick<ArgumentCandidate, 'needle' | 'phone'>, item?: LabelledContent) => boolean,
  note: (candidate: ArgumentCandidate, labels: readonly ProvenanceLabel[], token: string) => void,
  every = false,
): void {
  if (untrusted.length === 0) return;
  const parts: { readonly value: ArgumentCandidate; readonly start: number; readonly end: number }[] = [];
  let compact = '';
  for (const { value } of leaves) {
    if (value === null) continue;
    const start = compact.length;
    compact += compactForm(value.needle);
    if (compact.length > start) parts.push({ value, start, end: compact.length });
  }
  if (compact.length < MIN_COMPACT_LENGTH) return;
  const ownText = new Map<ArgumentCandidate, boolean>();
  const isOwnText = (value: ArgumentCandidate): boolean => {
    let own = ownText.get(value);
    if (own === undefined) ownText.set(value, (own = inTrusted(value)));
    return own;
  };
  for (const item of untrusted) {
    const index = indexOf(item);
    const noted = new Set<ArgumentCandidate>();
    for (let at = 0; at + MIN_COMPACT_LENGTH <= compact.length; at++) {
      const entry = index
        .get(compact.slice(at, at + KEY))
        ?.find((candidate) => compact.startsWith(candidate.compact, at) && !inTrusted(candidate.token, item));
      if (entry === undefined) continue;
      const end = at + entry.compact.length;
      for (const { value } of parts.filter((part) => part.start < end && at < part.end)) {
        if (noted.has(value) || isOwnText(value)) continue;
        note(value, [item.label], entry.token.needle);
        if (!every) noted.add(value);
      }
      if (every) at = end - 1;
    }
  }
}

function indexOf(item: LabelledContent): ReadonlyMap<string, readonly CompactToken[]> {
  let index = indexes.get(item);
  if (index !== undefined) return index;
  const built = new Map<string, CompactToken[]>();
  const seen = new Set<string>();
  for (const needle of valueTokens(item.canonical)) {
    const compact = compactForm(needle);
    if (compact.length < MIN_COMPACT_LENGTH || seen.has(needle)) continue;
    seen.add(needle);
    const key = compact.slice(0, KEY);
    const entry = { token: { needle, phone: phoneForms(needle) }, compact };
    const entries = built.get(key);
    if (entries === undefined) built.set(key, [entry]);
    else entries.push(entry);
  }
  index = built;
  indexes.set(item, index);
  return index;
}
