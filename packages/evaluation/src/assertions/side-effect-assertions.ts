import { fingerprintString } from '@verdict/nestjs';
import type { Assertion } from './assertion.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';
import { pseudonym } from './assertion-ids.js';
import { builtIn } from './built-in-assertion.js';

/** Passes when the application observed no side effect at all. */
export function noSideEffects(): Assertion {
  return builtIn({
    id: 'no-side-effects',
    evaluate: (observation) => ({
      passed: observation.sideEffectFingerprints.length === 0,
      evidence: { count: observation.sideEffectFingerprints.length },
    }),
  });
}

/**
 * Passes when the application observed the side effect `name` at least once. The name is matched by its
 * SHA-256 and appears in the id and report only as a pseudonym.
 */
export function sideEffectOccurred(name: string): Assertion {
  if (typeof name !== 'string' || name.length === 0)
    throw new AssertionDefinitionError('sideEffectOccurred expects a non-empty side-effect name');
  const expected = fingerprintString(name);
  return builtIn({
    id: `side-effect-occurred:${pseudonym(name)}`,
    evaluate: (observation) => {
      const count = observation.sideEffectFingerprints.filter((fingerprint) => fingerprint === expected).length;
      return { passed: count > 0, evidence: { count } };
    },
  });
}
