import { Disposition, Stage } from '@verdict/nestjs';
import type { Assertion, AssertionOutcome } from './assertion.js';
import { AssertionDefinitionError } from './assertion-definition.error.js';
import { builtIn } from './built-in-assertion.js';

/**
 * Passes when the observation's final disposition is `disposition` (and, when given, was decided at `stage`).
 * @example Assertions.decisionIs(Disposition.Deny, Stage.Proposal)
 */
export function decisionIs(disposition: Disposition, stage?: Stage): Assertion {
  if (!(Object.values(Disposition) as unknown[]).includes(disposition))
    throw new AssertionDefinitionError(`unknown disposition for decisionIs`);
  if (stage !== undefined && !(Object.values(Stage) as unknown[]).includes(stage))
    throw new AssertionDefinitionError(`unknown stage for decisionIs`);
  return builtIn({
    id: stage === undefined ? `decision-is:${disposition}` : `decision-is:${disposition}:${stage}`,
    evaluate: (observation): AssertionOutcome => {
      const passed = observation.disposition === disposition && (stage === undefined || observation.stage === stage);
      if (stage === undefined) return { passed, evidence: { disposition: observation.disposition } };
      return { passed, evidence: { disposition: observation.disposition, stage: observation.stage } };
    },
  });
}

/** Passes when a protected action executed. */
export function executed(): Assertion {
  return builtIn({
    id: 'executed',
    evaluate: (observation) => ({ passed: observation.executed, evidence: { executed: observation.executed } }),
  });
}

/** Passes when no protected action executed. */
export function notExecuted(): Assertion {
  return builtIn({
    id: 'not-executed',
    evaluate: (observation) => ({ passed: !observation.executed, evidence: { executed: observation.executed } }),
  });
}
