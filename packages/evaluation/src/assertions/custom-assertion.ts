import type { Observation } from '../observations/observation.js';
import type { Assertion, AssertionOutcome } from './assertion.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';
import { checkedAssertionId } from './assertion-ids.js';
import { reservedNameOf } from './built-in-assertion.js';

/**
 * An application-specific assertion. `check` returns a boolean or an {@link AssertionOutcome}; its
 * evidence is reported verbatim, so it must never hold raw output or secrets. Its id may not be, or begin with
 * `<name>:` of, a built-in assertion's name: a custom assertion never passes for a built-in in a report.
 *
 * @example
 * Assertions.custom('at-most-one-refund', (o) => o.toolCalls.filter((c) => c.capability === 'refunds.issue' && c.executed).length <= 1)
 */
export function custom(id: string, check: (observation: Observation) => boolean | AssertionOutcome): Assertion {
  const checkedId = checkedAssertionId(id);
  if (reservedNameOf(checkedId) !== null)
    throw new AssertionDefinitionError(
      `a custom assertion may not take the id of a built-in assertion ("${checkedId}")`,
    );
  if (typeof check !== 'function') throw new AssertionDefinitionError('custom expects a function');
  return {
    id: checkedId,
    evaluate: (observation) => {
      const outcome = check(observation);
      return typeof outcome === 'boolean' ? { passed: outcome } : outcome;
    },
  };
}
