/** Structured facts attached to a {@link VerdictError}; never raw arguments or payloads. */
export interface VerdictErrorContext {
  readonly capability?: string;
  readonly stage?: string;
  readonly [key: string]: string | number | boolean | undefined;
}

/**
 * The root of every error Verdict throws. `code` is stable across releases; `message` says what to do next.
 * Domain errors know nothing of HTTP: convert them at the edge (an exception filter or a guard).
 */
export abstract class VerdictError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    readonly context: VerdictErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
