import type { Observation } from '../observations/observation.js';
import type { CaseInput } from './case-input.js';
import type { CasePurpose } from './case-purpose.js';

/** Which case a runner is running: handy for naming sandbox fixtures. */
export interface CaseRunContext {
  readonly caseId: string;
  readonly version: string;
  readonly purpose: CasePurpose;
}

/**
 * Runs one case against the application (a sandbox, a captured proposal, a scripted agent) and reports
 * what happened. May be async. Whatever it throws is a harness error, never a pass or a failure.
 *
 * @example
 * const runner: CaseRunner = async (input) => {
 *   const proposal = { capability: 'orders.view', arguments: input.untrustedInput };
 *   return Observation.fromExecutionResult(await verdict.execute(proposal), proposal);
 * };
 */
export type CaseRunner<TSetup = unknown, TUntrusted = unknown> = (
  input: CaseInput<TSetup, TUntrusted>,
  context: CaseRunContext,
) => Observation | Promise<Observation>;
