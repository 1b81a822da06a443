export { EvaluationCliModule, EVALUATION_CLI, runEvaluationCli } from './evaluation-cli.module.js';
export { loadSuite, type LoadedSuite } from './load-suite.js';
export { loadLiveSuite, type LoadedLiveSuite } from './load-live-suite.js';
