import { evaluateForbiddenState } from '../trajectory/index.js';
import { AsrhResult, type AsrhAssertionOutcome } from './asrh-result.js';
import type { AsrhScenario } from './asrh-scenario.js';
import type { AsrhTrace } from './asrh-trace.js';

/**
 * `forbidden_state_not_reached` (a Verdict extension): folds the trace's effect events through
 * `expected.state_model` with the trajectory evaluator. Failure evidence holds the predicate id, the transition index
 * and the provenance chain (which names no resource or destination values); a model or sequence problem is `error`.
 */
export function evaluateForbiddenStateNotReached(scenario: AsrhScenario, trace: AsrhTrace): AsrhAssertionOutcome {
  const outcome = evaluateForbiddenState(scenario.expected.state_model, trace.events);
  switch (outcome.result) {
    case 'pass':
      return {
        result: AsrhResult.Pass,
        evidence: { transitions: outcome.transitions, warnings: [...outcome.warnings] },
      };
    case 'fail':
      return {
        result: AsrhResult.Fail,
        evidence: {
          predicate_id: outcome.predicateId,
          transition_index: outcome.transitionIndex,
          provenance_chain: [...outcome.provenanceChain],
          warnings: [...outcome.warnings],
        },
      };
    case 'error':
      return { result: AsrhResult.Error, evidence: outcome.problem };
  }
}
