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

/**
 * The compact tokens of an untrusted item by the prefix of their compact form, the shorter prefixes of those (where
 * a token may begin at the very end of an argument) and the length of the longest token.
 */
interface CompactIndex {
  readonly byKey: ReadonlyMap<string, readonly CompactToken[]>;
  readonly heads: ReadonlySet<string>;
  readonly longest: number;
}

/** The index of each untrusted item: built once per item. */
const indexes = new WeakMap<LabelledContent, CompactIndex>();

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
 * addresses, URLs and hosts, IBANs, phone numbers, identifiers) is looked for, in compact form, inside the compact
 * form of each string and number argument, and across the junction of any two of them, in either order: the compact
 * tail of one argument followed by the compact head of another (`subject` ends `www.secure-sy`, `body` begins
 * `stems-252.com`, whatever the key order and whatever argument lies between them; an executor lays them out as it
 * likes). A junction counts only a token that crosses it, and that token is influence on both arguments. A hit whose
 * token occurs in no trusted content (`inTrusted`, asked with the item that holds the token: a part of a longer token
 * the user gave is theirs) is influence on each argument it covers that is not itself trusted content, noted with the
 * item's label and the token (in canonical form) as untrusted content holds it: the first token found in each item,
 * or with `every`, each one.
 *
 * The tokens are indexed once per item, with their prefixes and the length of the longest. A proposal then costs, per
 * item, one lookup per character of its arguments and of each argument's tail, which finds the places where a token
 * may begin and run on past the argument's end, plus one per such place for each other argument: n·(n−1) junctions
 * for a call of n argument leaves, each tail and head at most the longest token's length minus one.
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
  const parts = leaves.flatMap(({ value }) => {
    const compact = value === null ? '' : compactForm(value.needle);
    return value === null || compact === '' ? [] : [{ value, compact }];
  });
  const ownText = new Map<ArgumentCandidate, boolean>();
  const isOwnText = (value: ArgumentCandidate): boolean => {
    let own = ownText.get(value);
    if (own === undefined) ownText.set(value, (own = inTrusted(value)));
    return own;
  };
  for (const item of untrusted) {
    const index = indexOf(item);
    if (index.longest === 0) continue;
    const noted = new Set<ArgumentCandidate>();
    const found = (values: readonly ArgumentCandidate[], token: string): void => {
      for (const value of values) {
        if (noted.has(value) || isOwnText(value)) continue;
        note(value, [item.label], token);
        if (!every) noted.add(value);
      }
    };
    for (const { value, compact } of parts)
      for (const token of tokensIn(index, item, compact, inTrusted, every)) found([value], token);
    const reach = index.longest - 1;
    parts.forEach((a, i) => {
      const tail = a.compact.slice(-reach);
      const starts = openings(index, tail);
      if (starts.length > 0)
        parts.forEach((b, j) => {
          if (i === j || (noted.has(a.value) && noted.has(b.value))) return;
          const token = tokenAcross(index, item, tail, b.compact.slice(0, reach), starts, inTrusted);
          if (token !== undefined) found(i < j ? [a.value, b.value] : [b.value, a.value], token);
        });
    });
  }
}

/** The tokens of `item` found in `compact`, each not in trusted content: the first, or with `every`, each one apart. */
function tokensIn(
  index: CompactIndex,
  item: LabelledContent,
  compact: string,
  inTrusted: (value: Pick<ArgumentCandidate, 'needle' | 'phone'>, item?: LabelledContent) => boolean,
  every: boolean,
): string[] {
  const found: string[] = [];
  for (let at = 0; at + MIN_COMPACT_LENGTH <= compact.length; at++) {
    const entry = index.byKey
      .get(compact.slice(at, at + KEY))
      ?.find((candidate) => compact.startsWith(candidate.compact, at) && !inTrusted(candidate.token, item));
    if (entry === undefined) continue;
    found.push(entry.token.needle);
    if (!every) break;
    at += entry.compact.length - 1;
  }
  return found;
}

/** Where in `tail` a token of `index` may begin and run on past its end: what a junction needs to look at. */
function openings(index: CompactIndex, tail: string): number[] {
  const starts: number[] = [];
  for (let at = 0; at < tail.length; at++) {
    const rest = tail.slice(at);
    const open =
      rest.length < KEY
        ? index.heads.has(rest)
        : index.byKey
            .get(rest.slice(0, KEY))
            ?.some((candidate) => candidate.compact.length > rest.length && candidate.compact.startsWith(rest));
    if (open === true) starts.push(at);
  }
  return starts;
}

/**
 * The first token of `item`, not in trusted content, that begins in `tail` at one of `starts` and runs on into
 * `head`: a token cut where one argument ends and another begins.
 */
function tokenAcross(
  index: CompactIndex,
  item: LabelledContent,
  tail: string,
  head: string,
  starts: readonly number[],
  inTrusted: (value: Pick<ArgumentCandidate, 'needle' | 'phone'>, item?: LabelledContent) => boolean,
): string | undefined {
  const junction = tail + head;
  for (const at of starts) {
    const entry = index.byKey
      .get(junction.slice(at, at + KEY))
      ?.find(
        (candidate) =>
          at + candidate.compact.length > tail.length &&
          junction.startsWith(candidate.compact, at) &&
          !inTrusted(candidate.token, item),
      );
    if (entry !== undefined) return entry.token.needle;
  }
  return undefined;
}

function indexOf(item: LabelledContent): CompactIndex {
  let index = indexes.get(item);
  if (index !== undefined) return index;
  const byKey = new Map<string, CompactToken[]>();
  const heads = new Set<string>();
  const seen = new Set<string>();
  let longest = 0;
  for (const needle of valueTokens(item.canonical)) {
    const compact = compactForm(needle);
    if (compact.length < MIN_COMPACT_LENGTH || seen.has(needle)) continue;
    seen.add(needle);
    longest = Math.max(longest, compact.length);
    const key = compact.slice(0, KEY);
    for (let length = 1; length < KEY; length++) heads.add(key.slice(0, length));
    const entry = { token: { needle, phone: phoneForms(needle) }, compact };
    const entries = byKey.get(key);
    if (entries === undefined) byKey.set(key, [entry]);
    else entries.push(entry);
  }
  index = { byKey, heads, longest };
  indexes.set(item, index);
  return index;
}
