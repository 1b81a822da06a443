import { Trust } from '../context-release/trust.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { canonicalForm, vouchingForm } from './canonical-form.js';
import type { ProvenanceLabel } from './provenance-label.js';
import type { ProvenanceSource } from './provenance-source.js';

/**
 * One content item of a context window with its label, and its text prepared for influence analysis once,
 * when it enters the window (its canonical form), so that analysing a proposal does not read the window's text
 * again. One copy besides the text itself: a window holds about twice its text. The text is kept in process
 * memory only, never in evidence.
 */
export interface LabelledContent {
  readonly label: ProvenanceLabel;
  /**
   * `canonicalForm` of the item's text, `vouchingForm` where it is trusted (no IBAN read across a line break): what
   * argument values are looked for in. For a value carried out of a proposed call (`labelCarried`), the value alone.
   */
  readonly canonical: string;
}

/**
 * Labels `text` and prepares it for analysis.
 *
 * @example labelContent(review.text, ProvenanceSource.tool('products.view'), Trust.Untrusted)
 */
export function labelContent(text: string, source: ProvenanceSource, trust: Trust): LabelledContent {
  const item: LabelledContent = Object.freeze({
    label: Object.freeze({ source, trust, fingerprint: fingerprintString(text) }),
    canonical: trust === Trust.Untrusted ? canonicalForm(text) : vouchingForm(text),
  });
  texts.set(item, text);
  return item;
}

/** What the text of a value carried out of a proposed call starts with: no message reads that way. */
const CARRIED = 'A value of a tool call the model proposed earlier: ';

/**
 * Labels one value a tool call the model proposed carries out of its window (ADR 0128), already in canonical form
 * as untrusted content holds it. Its text names it for what it is (so that its fingerprint is never a message's
 * that holds the value alone: a text seen untrusted is never trusted content, and a customer typing the value back
 * must stay trusted); it is analysed as the value alone, so that no word of that name is ever found in it.
 */
export function labelCarried(value: string, source: ProvenanceSource, trust: Trust): LabelledContent {
  const text = `${CARRIED}${value}`;
  const item: LabelledContent = Object.freeze({
    label: Object.freeze({ source, trust, fingerprint: fingerprintString(text) }),
    canonical: value,
  });
  texts.set(item, text);
  return item;
}

/** The text each item was labelled from, for as long as the item lives: never a property, so never serialized. */
const texts = new WeakMap<LabelledContent, string>();

/**
 * The text `item` was labelled from, exactly as it entered the context; `undefined` for an item
 * {@link labelContent} did not make. Process memory only: what an approver may see of it goes through a
 * context release route (`ApprovalService.untrustedContent`).
 */
export function labelledText(item: LabelledContent): string | undefined {
  return texts.get(item);
}
