/**
 * A normalized effect as recorded in a trace's `events` (the OWASP Agent Security Regression Harness shape). Other event
 * types are ignored by the trajectory assertion; an `effect` event that breaks this shape makes the result `error`.
 *
 * @example
 * { type: 'effect', id: 'evt-004', sequence: 4, effect: 'upload', resource: 'exports/customers-q3.zip',
 *   destination: 'external:files.example.net/drop', provenance: ['evt-003'] }
 */
export interface EffectEvent {
  readonly type: 'effect';
  /** The normalized verb (`read`, `export`, `upload`, `send`, …); non-empty. */
  readonly effect: string;
  /** The object the effect acted on; `null`, blank or absent means none. */
  readonly resource?: string | null;
  /** Where the result went (host, recipient, share); `null`, blank or absent means none. */
  readonly destination?: string | null;
  /** Ids of *earlier* effect events whose data this effect used. */
  readonly provenance?: readonly string[];
  /** Monotonic per-trace integer stamped at record time: either every effect event has one, or none does. */
  readonly sequence?: number;
  /** Unique among the trace's effect events; needed only to be named by a later `provenance`. */
  readonly id?: string;
}
