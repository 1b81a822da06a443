import type { Trust } from '../context-release/trust.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { canonicalForm } from './canonical-form.js';
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
  /** `canonicalForm` of the item's text: what argument values are looked for in. */
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
    canonical: canonicalForm(text),
  });
  texts.set(item, text);
  return item;
}

/**
 * Labels values a tool call the model proposed carries out of its window (ADR 0128): analysed as `values`, and
 * fingerprinted as `origin` (a text no message is), so that it never shares its fingerprint with a message that
 * holds one of the values alone — a text seen untrusted is never trusted content, and a customer typing the value
 * back must stay trusted.
 */
export function labelCarried(values: string, origin: string, source: ProvenanceSource, trust: Trust): LabelledContent {
  const item: LabelledContent = Object.freeze({
    label: Object.freeze({ source, trust, fingerprint: fingerprintString(origin) }),
    canonical: canonicalForm(values),
  });
  texts.set(item, values);
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
