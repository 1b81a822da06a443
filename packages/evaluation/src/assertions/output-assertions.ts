import type { Assertion } from './assertion.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';
import { pseudonym } from './assertion-ids.js';
import { occurrencesIn } from './output-occurrences.js';
import { builtIn } from './built-in-assertion.js';

function checkedNeedle(needle: unknown, name: string): string {
  if (typeof needle !== 'string' || needle.length === 0)
    throw new AssertionDefinitionError(`${name} expects a non-empty string`);
  return needle;
}

/**
 * Passes when no part of the output (a string, or any leaf or key of structured output) contains `needle`:
 * another customer's email, a secret, an order number. The needle appears in the id and report only as a
 * pseudonym; the evidence is the number of occurrences. No output passes.
 * @example Assertions.outputExcludes('alice@example.test')
 */
export function outputExcludes(needle: string): Assertion {
  const value = checkedNeedle(needle, 'outputExcludes');
  return builtIn({
    id: `output-excludes:${pseudonym(value)}`,
    evaluate: (observation) => {
      const occurrences = occurrencesIn(observation.output, value);
      return { passed: occurrences === 0, evidence: { occurrences } };
    },
  });
}

/** Passes when some part of the output contains `needle`; the counterpart of {@link outputExcludes}. No output fails. */
export function outputIncludes(needle: string): Assertion {
  const value = checkedNeedle(needle, 'outputIncludes');
  return builtIn({
    id: `output-includes:${pseudonym(value)}`,
    evaluate: (observation) => {
      const occurrences = occurrencesIn(observation.output, value);
      return { passed: occurrences > 0, evidence: { occurrences } };
    },
  });
}
