import { Trust } from '../context-release/trust.js';
import {
  type ArgumentCandidate,
  type ArgumentLeaf,
  argumentLeaves,
  candidateFingerprint,
  valueTokens,
} from './argument-candidates.js';
import { occursAsWordIn, occursIn, tokensAround } from './candidate-occurrence.js';
import { compactOccurrences } from './compact-occurrence.js';
import type { ArgumentDerivation, ArgumentInfluence, InfluenceReport } from './influence-report.js';
import type { InfluenceOptions } from './influence-options.js';
import type { ProvenanceLabel } from './provenance-label.js';
import { ProvenanceSource, TAINT_LEDGER_SOURCE } from './provenance-source.js';
import type { ProvenanceWindow } from './provenance-window.js';
import { type LabelledContent, labelContent } from './labelled-content.js';
import { literallyIn } from './literal-occurrence.js';
import { vouchesThroughCallers, vouchingContent } from './vouching-content.js';

/** What `InfluenceOptions.trustedValues` are, as content: the application's own. */
const TRUSTED_VALUE = ProvenanceSource.application('trusted-values');
/**
 * Influence analysis of one proposal (step 1a), in canonical form (`canonicalForm`) on both sides:
 * - whether untrusted (or unobserved) content was in the window;
 * - which argument values occur in untrusted content and in no trusted content (the negative rule), or are
 *   tainted (`options.tainted`); and which string arguments hold, once their separators and white space are
 *   gone, a value-like token of untrusted content that no trusted content holds (`compactOccurrences`: a link
 *   cut in two, spaced out or dashed inside a body, or cut across two arguments of the call);
 * - for every argument value, whether it is derived from trusted content (the positive rule): it occurs in
 *   trusted content of an observed window or in `options.trustedValues`, and is not tainted.
 * The cost is one scan of the window's canonical text per candidate value.
 *
 * @example analyzeInfluence(window, { recipient: 'DE89 3704 0044 0532 0130 00' }, { tainted })
 */
export function analyzeInfluence(
  window: ProvenanceWindow,
  args: unknown,
  options: InfluenceOptions = {},
): InfluenceReport {
  const { untrusted, inTrusted } = contentOf(window, options.trustedValues);
  const tainted = options.tainted ?? new Set<string>();
  const leaves = argumentLeaves(args);
  const influenced = new Map<string, { segments: readonly string[]; sources: Map<string, ProvenanceLabel> }>();
  findInfluence(untrusted, leaves, inTrusted, tainted, (candidate, labels) => {
    const entry = influenced.get(candidate.path) ?? { segments: candidate.segments, sources: new Map() };
    for (const label of labels) entry.sources.set(label.source.toString(), label);
    influenced.set(candidate.path, entry);
  });
  // A boolean or `null` carries no value to trace: the positive rule reads strings and numbers only.
  const derived = (leaf: ArgumentLeaf): boolean =>
    leaf.value === null ||
    (!leaf.candidates.some((candidate) => tainted.has(candidate.needle)) &&
      !tainted.has(leaf.value.needle) &&
      (options.ownRequest === true || inTrusted(leaf.value)));
  const derivation: ArgumentDerivation[] = leaves.map((leaf) => ({
    path: leaf.path,
    segments: leaf.segments,
    derived: derived(leaf),
  }));
  const argumentsInfluenced: ArgumentInfluence[] = [...influenced].map(([path, { segments, sources }]) => ({
    path,
    segments,
    sources: [...sources.values()],
  }));
  return {
    untrustedContext: window.untrusted,
    observed: window.observed,
    untrustedSources: window.untrustedSources(),
    arguments: argumentsInfluenced,
    derivation,
  };
}

/**
 * The values of `args` the negative rule finds in `window` (ADR 0128), each as untrusted content holds it — a
 * candidate's canonical value, a phone number in the form its item holds, every token of untrusted content found cut
 * inside an argument — with the labels of the items holding it: values found in trusted content too, or found
 * nowhere, are not among them. What a tool call the model proposed in `window` carries into the later windows that
 * show it.
 */
export function influencingValues(
  window: ProvenanceWindow,
  args: unknown,
): ReadonlyMap<string, readonly ProvenanceLabel[]> {
  const { untrusted, inTrusted } = contentOf(window);
  const found = new Map<string, ProvenanceLabel[]>();
  const note = (_: ArgumentCandidate, labels: readonly ProvenanceLabel[], value: string) => {
    const known = found.get(value) ?? [];
    found.set(value, [...known, ...labels.filter((label) => !known.includes(label))]);
  };
  findInfluence(untrusted, argumentLeaves(args), inTrusted, new Set(), note, true);
  return found;
}

/** The untrusted items of `window`, and whether a value is derived from its trusted content ({@link inTrustedContent}). */
function contentOf(window: ProvenanceWindow, trustedValues?: Iterable<string | number>) {
  const untrusted = window.items.filter((item) => item.label.trust === Trust.Untrusted);
  return { untrusted, inTrusted: inTrustedContent(window, trustedValues) };
}

/**
 * The positive rule's test of one value: whether it occurs, as a whole value, in trusted content of `window` that can
 * vouch for values ({@link vouchingContent}: not a model's answer, nor a text Verdict wrote) or in `trustedValues`.
 * A text that entered the window untrusted is never trusted content, whatever else it was seen as: otherwise anyone
 * could first send an attacker's page as their own message and so clear it for every other agent. A value folding
 * changed (a Cyrillic look-alike) is in trusted content only as its own code points spell it (`literallyIn`); a
 * sub-agent's input holds it only where the window its caller wrote it in does too (ADR 0146). A value holding a URL
 * whose host two parsers may read differently (`ambiguousUrl`) is in no trusted content: which host the executor
 * reads, no spelling in the window says (ADR 0164). The negative rule's "in no trusted content" and the taint ledger's
 * "not derived from trusted content" ask the same.
 *
 * @example inTrustedContent(window)(argumentCandidates({ recipient: 'billing@paypal.com' })[0]!)
 */
export function inTrustedContent(
  window: ProvenanceWindow,
  trustedValues?: Iterable<string | number>,
): (
  candidate: Pick<ArgumentCandidate, 'needle' | 'phone' | 'literal' | 'minus' | 'ambiguousUrl'> &
    Pick<Partial<ArgumentCandidate>, 'domain'>,
) => boolean {
  const trusted = vouchingContent(window);
  const values = [...(trustedValues ?? [])].map((value) => labelContent(String(value), TRUSTED_VALUE, Trust.Trusted));
  return (candidate) =>
    candidate.ambiguousUrl !== true &&
    [...trusted, ...values].some((item) =>
      vouchesThroughCallers(item, (each) => occursIn(each.canonical, candidate) && literallyIn(each, candidate)),
    );
}

/**
 * The negative rule's findings, each noted with the labels of what holds it and the value: a tainted candidate; a
 * candidate that occurs in untrusted content and in no trusted content (also a URL's host or an address's domain,
 * as a whole host: `ArgumentLeaf.hosts`; and the registrable domain of such a host as the domain of any host, unless
 * trusted content names a host of it: `ArgumentLeaf.domains`); a value-like token of untrusted content found
 * cut, spaced or dashed inside a string argument (`compactOccurrences`). With `every`, each value as untrusted
 * content holds it (a phone number in its item's form, every cut token); else the first finding per path and item
 * is enough.
 *
 * Untrusted content holds a value wherever no letter or digit is glued to it, also inside a longer token
 * (`occursAsWordIn`); trusted content clears it only as a whole token (`inTrusted`), each test erring on the side
 * that fails closed. An occurrence inside a longer token that trusted content holds whole is no value untrusted
 * content brought (`explainedIn`): a link the user gave, quoted by a page, does not make its parts the page's.
 */
function findInfluence(
  untrusted: readonly LabelledContent[],
  leaves: readonly ArgumentLeaf[],
  inTrusted: (
    candidate: Pick<ArgumentCandidate, 'needle' | 'phone' | 'literal' | 'minus' | 'ambiguousUrl'> &
      Pick<Partial<ArgumentCandidate>, 'domain'>,
  ) => boolean,
  tainted: ReadonlySet<string>,
  note: (candidate: ArgumentCandidate, labels: readonly ProvenanceLabel[], value: string) => void,
  every = false,
): void {
  const held = heldWhole(inTrusted);
  /** Notes `candidate` where the negative rule finds it; whether it did. */
  const found = (candidate: ArgumentCandidate): boolean => {
    // The taint ledger keeps values, not hosts.
    if (candidate.host !== true && tainted.has(candidate.needle)) {
      note(candidate, [taintLabel(candidate)], candidate.needle);
      return true;
    }
    if (untrusted.length === 0) return false;
    const hits = untrusted.filter(
      (item) => occursAsWordIn(item.canonical, candidate) && !explainedIn(item, candidate, held),
    );
    if (hits.length === 0 || inTrusted(candidate)) return false;
    if (!every || candidate.phone === null)
      note(
        candidate,
        hits.map(({ label }) => label),
        candidate.needle,
      );
    // A phone number occurs in other forms than the argument's (`+49 151…` for `0151…`): each as its item holds it.
    else for (const item of hits) for (const form of phoneFormsIn(item, candidate)) note(candidate, [item.label], form);
    return true;
  };
  for (const leaf of leaves) {
    let influenced = false;
    for (const candidate of leaf.candidates) if (found(candidate)) influenced = true;
    // Its URLs' hosts and addresses' domains, as whole hosts, where none of its values was found: a value found
    // holds its host already (ADR 0198).
    if (!influenced) for (const host of leaf.hosts) if (found(host)) influenced = true;
    // Their registrable domains, where no host was found: a subdomain made up on an injected domain (ADR 0202).
    if (!influenced) for (const domain of leaf.domains) found(domain);
  }
  const clears = (value: Pick<ArgumentCandidate, 'needle' | 'phone'>, item?: LabelledContent) =>
    inTrusted(value) || (item !== undefined && explainedIn(item, value, held));
  compactOccurrences(untrusted, leaves, clears, note, every);
}

/** Whether trusted content holds a token of untrusted content whole (`inTrusted`), each token asked once. */
function heldWhole(inTrusted: (value: Pick<ArgumentCandidate, 'needle' | 'phone'>) => boolean) {
  const known = new Map<string, boolean>();
  return (token: string): boolean => {
    let held = known.get(token);
    if (held === undefined) known.set(token, (held = inTrusted({ needle: token, phone: null })));
    return held;
  };
}

/**
 * Whether every occurrence of `value` in untrusted `item` lies inside a whole token (`tokensAround`) that trusted
 * content holds (`held`), and there is one: `desk-4471` in a page's `desk-4471@informations.example` that the user
 * wrote too. Never for a phone number or a value whose letters folding changed: those are found by themselves.
 */
function explainedIn(
  item: LabelledContent,
  value: Pick<ArgumentCandidate, 'needle' | 'phone' | 'literal'> & Pick<Partial<ArgumentCandidate>, 'host' | 'domain'>,
  held: (token: string) => boolean,
): boolean {
  const tokens = tokensAround(item.canonical, value);
  return tokens !== null && tokens.length > 0 && tokens.every(held);
}

/** The value-like tokens of `item` in which the phone number `candidate` occurs; its own spelling if none does. */
function phoneFormsIn(item: LabelledContent, candidate: ArgumentCandidate): readonly string[] {
  const forms = [...new Set(valueTokens(item.canonical))].filter((token) => occursAsWordIn(token, candidate));
  return forms.length > 0 ? forms : [candidate.needle];
}

/** The label of a value found in the taint ledger: its fingerprint, never the value. */
function taintLabel(candidate: ArgumentCandidate): ProvenanceLabel {
  return { source: TAINT_LEDGER_SOURCE, trust: Trust.Untrusted, fingerprint: candidateFingerprint(candidate) };
}
