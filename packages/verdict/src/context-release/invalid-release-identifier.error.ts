import { VerdictError } from '../errors/verdict.error.js';

/**
 * A source name, connection, trust zone, transformer name or correlation id that is not an identifier:
 * 1 to {@link MAX_RELEASE_IDENTIFIER_LENGTH} characters of `[A-Za-z0-9._-]`. Identifiers are stored in
 * evidence in clear, so they must name things, never carry data.
 */
export class InvalidReleaseIdentifierError extends VerdictError {
  readonly code = 'VERDICT_INVALID_RELEASE_IDENTIFIER';

  constructor(readonly role: string) {
    // The rejected value is not repeated: a caller who passes data where a name belongs should not see it echoed into logs.
    super(
      `The ${role} must be 1 to ${MAX_RELEASE_IDENTIFIER_LENGTH} characters of A-Z, a-z, 0-9, ".", "_" or "-". Use a stable name chosen by the application, not data.`,
      { role },
    );
  }
}

/** The longest identifier accepted (the evidence columns are sized for it). */
export const MAX_RELEASE_IDENTIFIER_LENGTH = 128;
