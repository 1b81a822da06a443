import { VerdictError } from './verdict.error.js';

/** A value that cannot be fingerprinted as canonical JSON (RFC 8785). `path` names where, e.g. `$.items[2].at`. */
export class NonCanonicalValueError extends VerdictError {
  readonly code = 'VERDICT_NON_CANONICAL_VALUE';

  constructor(
    readonly path: string,
    /** What is wrong, without the path: safe to record even when the path holds model-written keys. */
    readonly problem: string,
  ) {
    super(
      `${path}: ${problem}. Fingerprinted values must be plain JSON (objects, arrays, strings, finite numbers, booleans, null).`,
      { path },
    );
  }
}
