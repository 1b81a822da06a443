import type { JsonObject } from '../fingerprints/json-value.js';
import type { DataClass } from './data-class.js';
import type { Destination } from './destination.js';
import type { Source } from './source.js';
import type { Trust } from './trust.js';

/** The labels of a release, as a transformer sees them. */
export interface ReleaseFacts {
  readonly source: Source;
  readonly trust: Trust;
  readonly classification: DataClass;
  readonly destination: Destination;
}

/**
 * A custom transform of the projected payload (derive an age band from a birth date, truncate a note).
 * It receives a copy of the payload after projection, redaction and scanning and returns the new payload.
 * It may change or remove values, or collapse an object into a scalar; a result with any path the
 * projection did not release is refused (`transform_expanded:<name>`, nothing released). Transformers run
 * inside the application: review them like any security-sensitive code. An exception propagates.
 *
 * @example
 * const ageBand: ContextTransformer = {
 *   name: 'age-band',
 *   transform: (payload) => ({ ...payload, age: typeof payload.age === 'number' ? (payload.age >= 18 ? 'adult' : 'minor') : payload.age }),
 * };
 */
export interface ContextTransformer {
  /** An identifier (`[A-Za-z0-9._-]`), recorded in evidence as part of the transform-names fingerprint. */
  readonly name: string;
  transform(payload: JsonObject, facts: ReleaseFacts): JsonObject | Promise<JsonObject>;
}
