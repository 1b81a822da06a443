import type { LabelledContent } from '../provenance/labelled-content.js';

/**
 * A schema-typed value a quarantined model extracted from a handle's content (docs/quarantine.md). Its
 * `content` — the value as the deciding model reads it, labelled untrusted under the sources it was read from —
 * goes into the window of any call that uses the value, so provenance treats the value as derived from them.
 *
 * @example
 * const { value, content } = await quarantine.extract(handle, z.object({ iban: z.string() }));
 * const window = ProvenanceWindow.of([userItem, ...content]);
 */
export interface Extraction<T> {
  /** The value, as the schema parsed it. */
  readonly value: T;
  /** `JSON.stringify(value)`: what the deciding model reads. */
  readonly text: string;
  /** `text`, labelled untrusted under each untrusted source of the handle, with the source passages attached. */
  readonly content: readonly LabelledContent[];
}
