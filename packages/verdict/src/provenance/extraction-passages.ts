import { Trust } from '../context-release/trust.js';
import { labelContent, type LabelledContent, labelledText } from './labelled-content.js';

/** The passages each extracted value was read from, for as long as the value's item lives: never serialized. */
const passages = new WeakMap<LabelledContent, readonly LabelledContent[]>();

/**
 * Labels `text` — a value a quarantined model extracted — as derived from the untrusted `sources` it was read
 * from: one untrusted item per distinct untrusted source, each remembering the passages, so an approver can be
 * shown the source passage next to the value (docs/quarantine.md). An extracted value is never trusted: the
 * text it came from chose it.
 *
 * @example const [item] = extractedContent(JSON.stringify(value), handleItems);
 */
export function extractedContent(text: string, sources: readonly LabelledContent[]): readonly LabelledContent[] {
  const untrusted = sources.filter((item) => item.label.trust === Trust.Untrusted);
  const bySource = new Map<string, LabelledContent>();
  for (const source of untrusted) {
    const key = source.label.source.toString();
    if (bySource.has(key)) continue;
    const item = labelContent(text, source.label.source, Trust.Untrusted);
    passages.set(item, Object.freeze(untrusted.filter((passage) => passage.label.source.toString() === key)));
    bySource.set(key, item);
  }
  return Object.freeze([...bySource.values()]);
}

/** The passages `item` was extracted from; empty for an item that is not an extracted value. */
export function passagesOf(item: LabelledContent): readonly LabelledContent[] {
  return passages.get(item) ?? [];
}

/**
 * `item` as the module's shared labels keep it (by text, for every principal): an extracted value's label without
 * its passages, which are the extraction's own — another tenant's identical value, read from another document,
 * must never show an approver this one's passage. Any other item as it is.
 */
export function withoutPassages(item: LabelledContent): LabelledContent {
  const text = passages.has(item) ? labelledText(item) : undefined;
  return text === undefined ? item : labelContent(text, item.label.source, item.label.trust);
}
