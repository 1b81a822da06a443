import type { RecordedEffect } from './recorded-effect.js';
import { TrajectoryTraceError } from './trajectory-trace.error.js';

const NONE: readonly number[] = Object.freeze([]);

/**
 * Resolves each folded effect's `provenance` ids to the transition indexes of the effects they name. A reference must
 * name an effect event that comes *earlier* in the fold order. @throws TrajectoryTraceError for a reference to a later
 * effect, to the effect itself, or to no effect event at all (messages give positions, never the ids themselves).
 */
export function provenanceReferences(ordered: readonly RecordedEffect[]): readonly (readonly number[])[] {
  const positions = new Map<string, number>();
  ordered.forEach((effect, index) => {
    if (effect.id !== null) positions.set(effect.id, index);
  });
  return ordered.map((effect, index) =>
    effect.provenance.length === 0
      ? NONE
      : effect.provenance.map((reference, at) => {
          const position = positions.get(reference);
          if (position !== undefined && position < index) return position;
          const where = `events[${effect.arrival}].provenance[${at}]`;
          if (position === undefined)
            throw new TrajectoryTraceError(
              `${where}: names no effect event of this trace; provenance must name earlier effect events.`,
            );
          throw new TrajectoryTraceError(
            `${where}: names an effect that is not earlier in the fold order (transition ${position}, referenced from transition ${index}).`,
          );
        }),
  );
}
