import type { ArgumentCandidate } from './argument-candidates.js';
import { occursIn } from './candidate-occurrence.js';
import { literalForm } from './canonical-form.js';
import { type LabelledContent, labelledText } from './labelled-content.js';

/** Each item's text without confusable folding, made the first time a folded value is looked for in it. */
const literals = new WeakMap<LabelledContent, string>();

/**
 * Whether a candidate that `item` holds in canonical form is there as its own code points spell it. Confusable
 * folding lets an untrusted spelling of a value match its trusted one (the negative rule finds a Cyrillic
 * `раураl.com` in a review that quotes `paypal.com`), but a value whose letters folding changed is not the trusted
 * value it folds to: it counts as occurring in trusted content only where that content spells it alike. An item
 * whose text is not known (a carried value) never holds it so.
 *
 * @example literallyIn(customerMessageItem, candidateOf('раураl.com')) === false // the customer typed paypal.com
 */
export function literallyIn(
  item: LabelledContent,
  candidate: Pick<ArgumentCandidate, 'literal'> & Pick<Partial<ArgumentCandidate>, 'domain'>,
): boolean {
  const { literal } = candidate;
  if (literal === undefined) return true;
  let text = literals.get(item);
  if (text === undefined) {
    const raw = labelledText(item);
    if (raw === undefined) return false;
    literals.set(item, (text = literalForm(raw)));
  }
  return occursIn(text, { needle: literal, phone: null, ...(candidate.domain === true ? { domain: true } : {}) });
}
