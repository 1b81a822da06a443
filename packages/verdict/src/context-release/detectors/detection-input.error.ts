import { VerdictError } from '../../errors/verdict.error.js';

/**
 * Input a detector, `redactText`, or a `PlaceholderVault` cannot use: text that is not a string, spans out of bounds or
 * overlapping, a label that cannot form a placeholder, or a non-JSON value given to `restore`. The message names the
 * problem, never the text; nothing was changed.
 */
export class DetectionInputError extends VerdictError {
  readonly code = 'VERDICT_DETECTION_INPUT';

  constructor(readonly problem: string) {
    super(
      `${problem}. Pass text as a string, spans as returned by detect() (in bounds, non-overlapping), and plain JSON to restore(); nothing was changed.`,
      {
        stage: 'context-release',
      },
    );
  }
}
