import { custom } from './custom-assertion.js';
import { decisionIs, executed, notExecuted } from './decision-assertions.js';
import { outputExcludes, outputIncludes } from './output-assertions.js';
import { noSideEffects, sideEffectOccurred } from './side-effect-assertions.js';
import { toolAttemptedButBlocked, toolCallCount, toolExecuted, toolNotExecuted } from './tool-call-assertions.js';

/**
 * The built-in deterministic assertions, by name.
 *
 * @example
 * [Assertions.decisionIs(Disposition.Deny), Assertions.notExecuted(), Assertions.toolAttemptedButBlocked('orders.view'), Assertions.noSideEffects()]
 */
export const Assertions = Object.freeze({
  decisionIs,
  executed,
  notExecuted,
  toolAttemptedButBlocked,
  toolExecuted,
  toolNotExecuted,
  toolCallCount,
  noSideEffects,
  sideEffectOccurred,
  outputExcludes,
  outputIncludes,
  custom,
});
