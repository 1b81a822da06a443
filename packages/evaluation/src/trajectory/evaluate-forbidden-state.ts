import {
  compileStateModel,
  StateModelError,
  TrajectoryStepError,
  type StateMachine,
  type TrajectoryState,
} from '@verdict/nestjs';
import { coverageWarnings } from './coverage-warnings.js';
import { foldOrder } from './fold-order.js';
import { provenanceChain } from './provenance-chain.js';
import { provenanceReferences } from './provenance-references.js';
import { type RecordedEffect, recordedEffects } from './recorded-effect.js';
import { redactorFor } from './redactor.js';
import type { TrajectoryVerdict } from './trajectory-verdict.js';
import { TrajectoryTraceError } from './trajectory-trace.error.js';

/**
 * The `forbidden_state_not_reached` assertion: compiles `stateModel` (the scenario's `expected.state_model`), folds
 * the `type: "effect"` entries of `events` in sequence-contract order, checks the forbidden predicates after every
 * transition and fails at the first one that holds, with a provenance chain that names no resource or destination.
 * Never throws for bad input: an invalid model or unreliable trace evidence is an `error` verdict.
 *
 * @example
 * const verdict = evaluateForbiddenState(scenario.expected.state_model, trace.events);
 * if (verdict.result === 'fail') console.log(verdict.predicateId, verdict.transitionIndex);
 */
export function evaluateForbiddenState(stateModel: unknown, events: readonly unknown[]): TrajectoryVerdict {
  try {
    return fold(compileStateModel(stateModel), events);
  } catch (error) {
    if (
      error instanceof StateModelError ||
      error instanceof TrajectoryTraceError ||
      error instanceof TrajectoryStepError
    )
      return { result: 'error', problem: error.message };
    throw error;
  }
}

function fold(machine: StateMachine, events: readonly unknown[]): TrajectoryVerdict {
  const ordered = foldOrder(recordedEffects(events));
  const references = provenanceReferences(ordered);
  const redact = redactorFor(ordered);
  const warnings = coverageWarnings(machine, ordered, redact);
  let state = machine.initial;
  for (let index = 0; index < ordered.length; index++) {
    state = machine.step(state, ordered[index].effect).state;
    const predicateId = machine.firstViolation(state);
    if (predicateId !== null) {
      const history = { initial: machine.initial, ordered, ...replay(machine, ordered, index), references };
      return {
        result: 'fail',
        predicateId,
        transitionIndex: index,
        provenanceChain: provenanceChain(history, index, machine.fieldsOf(predicateId), redact),
        warnings,
      };
    }
  }
  return { result: 'pass', transitions: ordered.length, warnings };
}

/**
 * The states and applied rules of transitions 0…`last`, for the provenance chain of a failure. The fold is
 * pure, so replaying it is exact; the passing path keeps nothing but the current state.
 */
function replay(machine: StateMachine, ordered: readonly RecordedEffect[], last: number) {
  const states: TrajectoryState[] = [];
  const rules: (readonly number[])[] = [];
  let state = machine.initial;
  for (let index = 0; index <= last; index++) {
    const step = machine.step(state, ordered[index].effect);
    states.push((state = step.state));
    rules.push(step.matched);
  }
  return { states, rules };
}
