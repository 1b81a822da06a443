import type { StateMachine } from '@verdict/nestjs';
import type { RecordedEffect } from './recorded-effect.js';
import type { Redactor } from './redactor.js';

/**
 * One warning per effect name (first-appearance order) whose events matched no transition `when`, guards aside: what
 * those effects did is invisible to the assertion. A trace without effect events gets a warning that the pass is vacuous.
 */
export function coverageWarnings(
  machine: StateMachine,
  ordered: readonly RecordedEffect[],
  redact: Redactor,
): string[] {
  if (ordered.length === 0) return ['the trace holds no effect events: a pass covers nothing'];
  const uncovered = new Map<string, number>();
  for (const { effect } of ordered) {
    if (!machine.covers(effect)) uncovered.set(effect.effect, (uncovered.get(effect.effect) ?? 0) + 1);
  }
  return [...uncovered].map(
    ([name, count]) => `effect '${redact(name)}' matched no transition rule (${count} event${count === 1 ? '' : 's'})`,
  );
}
