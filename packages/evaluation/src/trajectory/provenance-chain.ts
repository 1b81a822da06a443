import type { TrajectoryState } from '@verdict/nestjs';
import type { ProvenanceLink } from './provenance-link.js';
import type { RecordedEffect } from './recorded-effect.js';
import type { Redactor } from './redactor.js';

/** What the fold saw up to and including the violating transition. */
export interface FoldHistory {
  readonly initial: TrajectoryState;
  /** Effects in fold order (at least up to the violation). */
  readonly ordered: readonly RecordedEffect[];
  /** `states[k]`: the state after transition `k`. */
  readonly states: readonly TrajectoryState[];
  /** `rules[k]`: the transition rules that applied at transition `k`. */
  readonly rules: readonly (readonly number[])[];
  /** `references[k]`: transition indexes named by the provenance of effect `k`. */
  readonly references: readonly (readonly number[])[];
}

/**
 * The provenance chain of a violation at `violationAt` of a predicate reading `fields`: the violating effect, every
 * effect that changed one of those fields on the way, and every earlier effect they name through `provenance`,
 * transitively; ordered by transition index.
 */
export function provenanceChain(
  history: FoldHistory,
  violationAt: number,
  fields: readonly string[],
  redact: Redactor,
): ProvenanceLink[] {
  const changed = new Map<number, string[]>();
  for (let index = 0; index <= violationAt; index++) {
    const before = index === 0 ? history.initial : history.states[index - 1];
    const after = history.states[index];
    if (before === after) continue;
    const written = fields.filter((field) => valueOf(before, field) !== valueOf(after, field));
    if (written.length > 0) changed.set(index, written);
  }
  const included = new Set<number>([violationAt, ...changed.keys()]);
  const pending = [...included];
  while (pending.length > 0) {
    for (const reference of history.references[pending.pop()!]) {
      if (!included.has(reference)) {
        included.add(reference);
        pending.push(reference);
      }
    }
  }
  return [...included]
    .sort((a, b) => a - b)
    .map((index) => {
      const effect = history.ordered[index];
      return {
        transitionIndex: index,
        effect: redact(effect.effect.effect),
        sequence: effect.stamped ? (effect.sequence as number) : null,
        eventId: effect.id === null ? null : redact(effect.id),
        rules: [...history.rules[index]],
        fields: changed.get(index) ?? [],
        references: [...history.references[index]],
      };
    });
}

function valueOf(state: TrajectoryState, field: string): unknown {
  return Object.hasOwn(state, field) ? state[field] : undefined;
}
