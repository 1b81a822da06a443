import { VerdictError } from '../errors/verdict.error.js';

/**
 * A `redact()` or `scan()` path that no path of `only()` can ever release: it would protect nothing, which
 * almost always means it was meant for a field the allowlist spells differently. Fix the path or the allowlist.
 */
export class UnreachableRedactionError extends VerdictError {
  readonly code = 'VERDICT_UNREACHABLE_REDACTION';

  constructor(readonly path: string) {
    super(
      `The redaction or scan path "${path}" can never match a path of only(): it protects nothing. Spell it as the allowlist does, or remove it.`,
      {
        path,
      },
    );
  }
}
