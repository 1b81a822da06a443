export { AsrhAssertionType, AsrhCategory, AsrhSeverity } from './asrh-scenario.js';
export type {
  AsrhAssertion,
  AsrhContextItem,
  AsrhExpected,
  AsrhInput,
  AsrhScenario,
  AsrhTarget,
} from './asrh-scenario.js';
export type { AsrhTrace, AsrhTraceEntry } from './asrh-trace.js';
export { AsrhResult, aggregateAsrhResults } from './asrh-result.js';
export type { AsrhAssertionOutcome, AsrhAssertionResult, AsrhEvidence, AsrhRun } from './asrh-result.js';
export { AsrhScenarioError } from './asrh-scenario.error.js';
export { AsrhTraceError } from './asrh-trace.error.js';
export type { AsrhSource } from './asrh-source.js';
export { loadScenario } from './load-scenario.js';
export { loadTrace } from './load-trace.js';
export { collectScenarioFiles, collectTraceFiles } from './collect-asrh-files.js';
export type { AsrhCollectedFile } from './collect-asrh-files.js';
export { asrhToolCallName } from './tool-call-name.js';
export { evaluateAsrhScenario, asrhAssertionIds } from './evaluate-asrh-scenario.js';
export type { AsrhCaseOutcome } from './evaluate-asrh-scenario.js';
export { runAsrh } from './run-asrh.js';
export type { AsrhRunOptions } from './run-asrh.js';
