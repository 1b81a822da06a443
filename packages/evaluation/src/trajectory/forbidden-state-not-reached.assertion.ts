import { compileStateModel } from '@verdict/nestjs';
import type { JsonValue } from '@verdict/nestjs';
import type { Assertion, AssertionOutcome } from '../assertions/assertion.js';
import { checkedAssertionId } from '../assertions/assertion-ids.js';
import { evaluateForbiddenState } from './evaluate-forbidden-state.js';

/**
 * `forbidden_state_not_reached` for a suite case: folds `observation.effects` (effect events as in a
 * recorded trace) through `stateModel` and fails at the first forbidden state, with the predicate id,
 * the transition index and a provenance chain that names no resource or destination. An ambiguous
 * sequence or dangling provenance is unreliable evidence: the assertion throws, so the case is a
 * harness error, never a pass. The model is validated when the assertion is built (`StateModelError`).
 * A pass means no forbidden state among the modelled effects, nothing more.
 *
 * @example
 * EvaluationCase.attack('exfiltration', '1', input, runner, [forbiddenStateNotReached(customerRecordsExfiltration)])
 */
export function forbiddenStateNotReached(stateModel: unknown, id = 'forbidden-state-not-reached'): Assertion {
  compileStateModel(stateModel);
  const checkedId = checkedAssertionId(id);
  return {
    id: checkedId,
    evaluate: (observation): AssertionOutcome => {
      const verdict = evaluateForbiddenState(stateModel, observation.effects);
      if (verdict.result === 'error') throw new UnreliableTrajectoryError(verdict.problem);
      if (verdict.result === 'pass')
        return { passed: true, evidence: { transitions: verdict.transitions, warnings: [...verdict.warnings] } };
      return {
        passed: false,
        evidence: {
          predicate_id: verdict.predicateId,
          transition_index: verdict.transitionIndex,
          provenance_chain: JSON.parse(JSON.stringify(verdict.provenanceChain)) as JsonValue,
          warnings: [...verdict.warnings],
        },
      };
    },
  };
}

/** The observed effects cannot be folded reliably (ambiguous order, malformed effect, dangling provenance). */
export class UnreliableTrajectoryError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'UnreliableTrajectoryError';
  }
}
