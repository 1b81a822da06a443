import type { JsonValue } from '@verdict/nestjs';
import type { Assertion, AssertionOutcome } from '../assertions/assertion.js';
import { AssertionDefinitionError } from '../assertions/assertion-definition.error.js';
import { checkedAssertionId, pseudonym } from '../assertions/assertion-ids.js';
import { builtIn, reservedNameOf } from '../assertions/built-in-assertion.js';
import { evaluateForbiddenState } from './evaluate-forbidden-state.js';
import { frozenStateModel } from './frozen-state-model.js';

const NAME = 'forbidden-state-not-reached';

/**
 * `forbidden_state_not_reached` for a suite case: folds `observation.effects` (effect events as in a
 * recorded trace) through `stateModel` and fails at the first forbidden state, with the predicate id,
 * the transition index and a provenance chain that names no resource or destination. An ambiguous
 * sequence or dangling provenance is unreliable evidence: the assertion throws, so the case is a
 * harness error, never a pass. The model is validated when the assertion is built (`StateModelError`) and kept as a
 * frozen copy: changing it afterwards changes nothing the assertion judges.
 * A pass means no forbidden state among the modelled effects, nothing more.
 *
 * Its id names the model (ADR 0200): `forbidden-state-not-reached:<pseudonym>`, a pseudonym of the model's canonical
 * fingerprint, as `output-excludes:<pseudonym>` names its text; another model (a raised threshold, say) is another id,
 * so a baseline compares it as removed and added coverage. `id` gives an id of the application's own instead
 * (`no-customer-export`), reported as given; an id under a built-in's name (`not-executed`, `decision-is:…`,
 * `forbidden-state-not-reached` or `forbidden-state-not-reached:…` other than the model's own) is refused with
 * {@link AssertionDefinitionError}: a report's id names what ran.
 *
 * @example
 * EvaluationCase.attack('exfiltration', '1', input, runner, [forbiddenStateNotReached(customerRecordsExfiltration)])
 */
export function forbiddenStateNotReached(stateModel: unknown, id?: string): Assertion {
  const { model, canonical } = frozenStateModel(stateModel);
  const own = `${NAME}:${pseudonym(canonical)}`;
  const checkedId = id === undefined ? own : checkedAssertionId(id);
  const reserved = checkedId === own ? null : reservedNameOf(checkedId);
  if (reserved === NAME)
    throw new AssertionDefinitionError(
      `forbiddenStateNotReached names its id by its model ("${own}"); "${checkedId}" would name another: leave the id ` +
        "out, or give one of the application's own",
    );
  if (reserved !== null)
    throw new AssertionDefinitionError(
      `forbiddenStateNotReached may not take the id of another built-in assertion ("${checkedId}")`,
    );
  return builtIn({
    id: checkedId,
    evaluate: (observation): AssertionOutcome => {
      const verdict = evaluateForbiddenState(model, observation.effects);
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
