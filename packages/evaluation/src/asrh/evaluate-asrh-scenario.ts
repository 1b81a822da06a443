import {
  aggregateAsrhResults,
  AsrhResult,
  type AsrhAssertionOutcome,
  type AsrhAssertionResult,
} from './asrh-result.js';
import { AsrhAssertionType, type AsrhAssertion, type AsrhScenario } from './asrh-scenario.js';
import type { AsrhTrace } from './asrh-trace.js';
import { evaluateApprovalRequired } from './approval-required.assertion.js';
import { evaluateForbiddenStateNotReached } from './forbidden-state-not-reached.assertion.js';
import { evaluateGoalIntegrity } from './goal-integrity.assertion.js';
import { evaluateMemoryIsolation } from './memory-isolation.assertion.js';
import { evaluateNoDeniedToolCall } from './no-denied-tool-call.assertion.js';
import { evaluateNoExternalRecipient } from './no-external-recipient.assertion.js';

/** A scenario's outcome on one trace: the case result and each assertion's, in the scenario's order. */
export interface AsrhCaseOutcome {
  readonly result: AsrhResult;
  readonly assertions: readonly AsrhAssertionResult[];
}

/**
 * Evaluates every assertion of `scenario` against `trace` and aggregates them (see {@link aggregateAsrhResults}).
 * An unknown assertion type, or an evaluator that throws, is `error` (evidence names the error class only).
 * @example evaluateAsrhScenario(loadScenario({ file }), loadTrace({ file: traceFile })).result // 'pass'
 */
export function evaluateAsrhScenario(scenario: AsrhScenario, trace: AsrhTrace): AsrhCaseOutcome {
  const ids = asrhAssertionIds(scenario.assertions);
  const assertions = scenario.assertions.map((assertion, index) => ({
    id: ids[index]!,
    ...evaluateGuarded(scenario, assertion, trace),
  }));
  return { result: aggregateAsrhResults(assertions.map((assertion) => assertion.result)), assertions };
}

/**
 * The id of each assertion: its `type`, or `type#index` (index = position in the list) for every assertion of a type
 * the scenario lists more than once.
 * @example asrhAssertionIds([{ type: 'a' }, { type: 'b' }, { type: 'a' }]) // ['a#0', 'b', 'a#2']
 */
export function asrhAssertionIds(assertions: readonly Pick<AsrhAssertion, 'type'>[]): string[] {
  const counts = new Map<string, number>();
  for (const { type } of assertions) counts.set(type, (counts.get(type) ?? 0) + 1);
  return assertions.map(({ type }, index) => (counts.get(type)! > 1 ? `${type}#${index}` : type));
}

function evaluateGuarded(scenario: AsrhScenario, assertion: AsrhAssertion, trace: AsrhTrace): AsrhAssertionOutcome {
  try {
    return evaluateAssertion(scenario, assertion, trace);
  } catch (error) {
    // A harness fault is neither a pass nor a failure; its message may quote trace content, so only the class is kept.
    const name = error instanceof Error ? error.constructor.name : typeof error;
    return { result: AsrhResult.Error, evidence: `assertion evaluator threw ${name}` };
  }
}

function evaluateAssertion(scenario: AsrhScenario, assertion: AsrhAssertion, trace: AsrhTrace): AsrhAssertionOutcome {
  switch (assertion.type) {
    case AsrhAssertionType.NoDeniedToolCall:
      return evaluateNoDeniedToolCall(scenario, trace);
    case AsrhAssertionType.NoExternalRecipient:
      return evaluateNoExternalRecipient(scenario, trace);
    case AsrhAssertionType.GoalIntegrity:
      return evaluateGoalIntegrity(assertion, trace);
    case AsrhAssertionType.MemoryIsolation:
      return evaluateMemoryIsolation(scenario, trace);
    case AsrhAssertionType.ApprovalRequired:
      return evaluateApprovalRequired(scenario, assertion, trace);
    case AsrhAssertionType.NoSecretDisclosure:
      return {
        result: AsrhResult.NotRun,
        evidence: 'no_secret_disclosure is not evaluated (the harness does not implement it either)',
      };
    case AsrhAssertionType.ForbiddenStateNotReached:
      return evaluateForbiddenStateNotReached(scenario, trace);
    default:
      return { result: AsrhResult.Error, evidence: 'unsupported assertion type' };
  }
}
