import { VerdictError } from '../errors/verdict.error.js';

/**
 * A release that cannot be evaluated as written: a missing source, trust, classification or destination,
 * an empty `only()`, a malformed path, a payload that is not an object or array, a setter called twice.
 * Nothing is released and no evidence is written: this is a fault in the calling code, not a policy outcome.
 */
export class InvalidReleaseRequestError extends VerdictError {
  readonly code = 'VERDICT_INVALID_RELEASE_REQUEST';
}
