import type { RecordedEffect } from './recorded-effect.js';
import { TrajectoryTraceError } from './trajectory-trace.error.js';

/**
 * The sequence contract: when every effect event stamps an integer `sequence`, the fold follows the stamps (so the
 * same recording folds the same way however its JSON array was re-serialized); when none does, it follows arrival
 * order. A mix of stamped and unstamped effects, a non-integer stamp or a repeated stamp leaves the recorded order
 * ambiguous. @throws TrajectoryTraceError in those cases: the evidence is unreliable, neither a pass nor a fail.
 */
export function foldOrder(effects: readonly RecordedEffect[]): readonly RecordedEffect[] {
  const stamped = effects.filter((effect) => effect.stamped);
  if (stamped.length === 0) return effects;
  if (stamped.length !== effects.length) {
    const unstamped = effects.find((effect) => !effect.stamped)!;
    throw new TrajectoryTraceError(
      `Effect events must all stamp a sequence or none may: events[${stamped[0].arrival}] stamps one, events[${unstamped.arrival}] does not. The fold order is ambiguous.`,
    );
  }
  let ascending = true;
  for (let index = 0; index < effects.length; index++) {
    const stamp = effects[index].sequence;
    if (typeof stamp !== 'number' || !Number.isSafeInteger(stamp))
      throw new TrajectoryTraceError(`events[${effects[index].arrival}].sequence: must be an integer.`);
    if (index > 0 && stamp <= (effects[index - 1].sequence as number)) ascending = false;
  }
  // Recorders stamp in arrival order: strictly ascending stamps are already the fold order, and unique.
  if (ascending) return effects;
  const seen = new Map<number, number>();
  for (const effect of effects) {
    const stamp = effect.sequence as number;
    const first = seen.get(stamp);
    if (first !== undefined)
      throw new TrajectoryTraceError(
        `events[${effect.arrival}].sequence: repeats stamp ${stamp} of events[${first}]; the fold order is ambiguous.`,
      );
    seen.set(stamp, effect.arrival);
  }
  return [...effects].sort((a, b) => (a.sequence as number) - (b.sequence as number));
}
