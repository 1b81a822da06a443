export type { Assertion, AssertionOutcome } from './assertion.js';
export { Assertions } from './assertions.js';
export { AssertionDefinitionError } from './assertion-definition.error.js';
export { decisionIs, executed, notExecuted } from './decision-assertions.js';
export { toolAttemptedButBlocked, toolExecuted, toolNotExecuted, toolCallCount } from './tool-call-assertions.js';
export { noSideEffects, sideEffectOccurred } from './side-effect-assertions.js';
export { outputExcludes, outputIncludes } from './output-assertions.js';
export { custom } from './custom-assertion.js';
export { InvalidAssertionOutcomeError } from './invalid-assertion-outcome.error.js';
