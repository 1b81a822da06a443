import { VerdictError } from './verdict.error.js';

/**
 * A wiring mistake found at boot: a duplicate or blank capability name, a bound tool for an unknown
 * capability, a capability without an execution-target policy. The application must not start.
 */
export class VerdictConfigurationError extends VerdictError {
  readonly code = 'VERDICT_CONFIGURATION';
}
