import type { JsonValue } from '@verdict/nestjs';
import type { Observation } from '../observations/observation.js';

/**
 * The verdict of one assertion on one observation. `evidence` is written to the report: keep it to
 * counts, fingerprints and fixed vocabulary, never raw output, inputs or secrets.
 */
export interface AssertionOutcome {
  readonly passed: boolean;
  readonly evidence?: JsonValue;
}

/**
 * A deterministic check of an {@link Observation}. The id is reported verbatim and must be unique within a
 * case (letters, digits and `. _ : / -`). An assertion that throws makes the case a harness error. A hand-written
 * assertion takes any such id but a built-in's (`not-executed`, `decision-is:…`, `forbidden-state-not-reached`):
 * a case refuses those on anything but the built-in itself (`EvaluationCaseError`), so a report's id names what ran.
 *
 * @example
 * const noRefund: Assertion = { id: 'no-refund', evaluate: (o) => ({ passed: !o.toolCalls.some((c) => c.capability === 'refunds.issue') }) };
 */
export interface Assertion {
  readonly id: string;
  evaluate(observation: Observation): AssertionOutcome;
}
