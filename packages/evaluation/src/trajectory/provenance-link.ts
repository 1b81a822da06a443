/**
 * One step of the redacted provenance chain behind a forbidden state. It locates an effect and says how it contributed;
 * it never holds a resource or destination value. Any trace-supplied string (event id, effect name) that contains such
 * a value is replaced by `sha256:<hex>` of itself.
 *
 * @example { transitionIndex: 2, effect: 'upload', sequence: 3, eventId: 'evt-3', rules: [2], fields: ['external_uploads'], references: [1] }
 */
export interface ProvenanceLink {
  /** Position of the effect in the fold order, 0-based: the same index space as the verdict's `transitionIndex`. */
  readonly transitionIndex: number;
  /** The effect's verb. */
  readonly effect: string;
  /** The effect's `sequence` stamp, or `null` for an unstamped trace. */
  readonly sequence: number | null;
  /** The effect event's `id`, or `null` when it has none. */
  readonly eventId: string | null;
  /** Transition rules (declaration indexes) that applied to this effect. */
  readonly rules: readonly number[];
  /** Fields read by the violated predicate whose value this effect changed. */
  readonly fields: readonly string[];
  /** Transition indexes of the earlier effects this one names in its `provenance`. */
  readonly references: readonly number[];
}
