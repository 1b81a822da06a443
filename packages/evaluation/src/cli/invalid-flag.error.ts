import { VerdictError } from '@verdict/nestjs';

/**
 * A `verdict-eval` flag whose value is not written as the flag requires (`--trials 1e2`, `--bound-threshold 0x1`):
 * a usage error (exit 2), found before any file is read or any trial runs. `flag` names it, as typed (`--trials`).
 */
export class InvalidFlagError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_INVALID_FLAG';

  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(message, { flag });
  }
}
