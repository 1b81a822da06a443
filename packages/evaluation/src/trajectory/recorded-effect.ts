import type { Effect } from '@verdict/nestjs';
import type { EffectEvent } from './effect-event.js';
import { TrajectoryTraceError } from './trajectory-trace.error.js';

/** One effect event, checked and normalized, with where it arrived in the trace's `events`. */
export interface RecordedEffect {
  /** Index in the trace's `events` array. */
  readonly arrival: number;
  readonly effect: Effect;
  readonly id: string | null;
  /** Whether the event carries a `sequence` key (any value, even `null`: the sequence contract judges it). */
  readonly stamped: boolean;
  /** The raw `sequence` value; an integer once the sequence contract has accepted the trace. */
  readonly sequence: unknown;
  readonly provenance: readonly string[];
}

/**
 * The `type: "effect"` entries of `events`, in arrival order, each checked: a non-empty string `effect`; `resource` and
 * `destination` strings, `null` or absent; `provenance` a list of non-empty strings; `id` a non-empty string, unique
 * among effect events. Other entries are ignored. @throws TrajectoryTraceError naming the offending position.
 */
export function recordedEffects(events: readonly unknown[]): RecordedEffect[] {
  if (!Array.isArray(events)) throw new TrajectoryTraceError('The trace `events` must be a list.');
  const effects: RecordedEffect[] = [];
  const ids = new Map<string, number>();
  events.forEach((event, arrival) => {
    if (!isRecord(event) || event.type !== 'effect') return;
    const recorded = {
      arrival,
      effect: effectOf(event, arrival),
      id: idOf(event, arrival),
      stamped: Object.hasOwn(event, 'sequence') && event.sequence !== undefined,
      sequence: event.sequence,
      provenance: provenanceOf(event, arrival),
    };
    if (recorded.id !== null) {
      const first = ids.get(recorded.id);
      if (first !== undefined)
        throw new TrajectoryTraceError(
          `events[${arrival}].id: repeats the id of events[${first}]; provenance references would be ambiguous.`,
        );
      ids.set(recorded.id, arrival);
    }
    effects.push(recorded);
  });
  return effects;
}

/** Any non-array object: no prototype check, so an effect event built in another realm is never silently skipped. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function effectOf(event: Record<string, unknown>, arrival: number): Effect {
  const { effect, resource, destination } = event as Partial<EffectEvent>;
  if (typeof effect !== 'string' || effect.trim() === '')
    throw new TrajectoryTraceError(`events[${arrival}].effect: an effect event needs a non-empty string verb.`);
  for (const [name, value] of [
    ['resource', resource],
    ['destination', destination],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string')
      throw new TrajectoryTraceError(`events[${arrival}].${name}: must be a string, null or absent.`);
  }
  return { effect: effect.trim(), resource: resource ?? null, destination: destination ?? null };
}

function idOf(event: Record<string, unknown>, arrival: number): string | null {
  if (!Object.hasOwn(event, 'id') || event.id === undefined) return null;
  if (typeof event.id !== 'string' || event.id.trim() === '')
    throw new TrajectoryTraceError(`events[${arrival}].id: must be a non-empty string.`);
  return event.id;
}

const NO_PROVENANCE: readonly string[] = Object.freeze([]);

function provenanceOf(event: Record<string, unknown>, arrival: number): readonly string[] {
  const { provenance } = event;
  if (provenance === undefined || provenance === null) return NO_PROVENANCE;
  if (!Array.isArray(provenance))
    throw new TrajectoryTraceError(`events[${arrival}].provenance: must be a list of event ids.`);
  provenance.forEach((reference, index) => {
    if (typeof reference !== 'string' || reference.trim() === '')
      throw new TrajectoryTraceError(`events[${arrival}].provenance[${index}]: must be a non-empty event id string.`);
  });
  return provenance as string[];
}
