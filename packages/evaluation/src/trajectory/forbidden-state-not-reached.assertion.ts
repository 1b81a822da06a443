import { compileStateModel } from '@verdict/nestjs';
import type { JsonValue } from '@verdict/nestjs';
import type { Assertion, AssertionOutcome } from '../assertions/assertion.js';
import { AssertionDefinitionError } from '../assertions/assertion-definition.error.js';
import { checkedAssertionId } from '../assertions/assertion-ids.js';
import { builtIn, reservedNameOf } from '../assertions/built-in-assertion.js';
import { evaluateForbiddenState } from './evaluate-forbidden-state.js';

const NAME = 'forbidden-state-not-reached';

/**
 * `forbidden_state_not_reached` for a suite case: folds `observation.effects` (effect events as in a
 * recorded trace) through `stateModel` and fails at the first forbidden state, with the predicate id,
 * the transition index and a provenance chain that names no resource or destination. An ambiguous
 * sequence or dangling provenance is unreliable evidence: the assertion throws, so the case is a
 * harness error, never a pass. The model is validated when the assertion is built (`StateModelError`).
 * A pass means no forbidden state among the modelled effects, nothing more. The id may be any assertion id but
 * another built-in's (`not-executed`, `decision-is:…`; {@link AssertionDefinitionError}): a report's id names what ran.
 *
 * @example
 * EvaluationCase.attack('exfiltration', '1', input, runner, [forbiddenStateNotReached(customerRecordsExfiltration)])
 */
export function forbiddenStateNotReached(stateModel: unknown, id = NAME): Assertion {
  compileStateModel(stateModel);
  const checkedId = checkedAssertionId(id);
  const reserved = reservedNameOf(checkedId);
  if (reserved !== null && reserved !== NAME)
    throw new AssertionDefinitionError(
      `forbiddenStateNotReached may not take the id of another built-in assertion ("${checkedId}")`,
    );
  return builtIn({
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
  });
}

/** The observed effects cannot be folded reliably (ambiguous order, malformed effect, dangling provenance). */
export class UnreliableTrajectoryError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'UnreliableTrajectoryError';
  }
}
