import { VerdictError } from '@verdict/nestjs';

/**
 * A scenario that cannot be used: unreadable, not YAML, or not in the harness's scenario format.
 * `file` names the scenario, `path` where in it (`$.assertions[1].expected_goal`); the message never echoes values.
 */
export class AsrhScenarioError extends VerdictError {
  readonly code = 'VERDICT_ASRH_SCENARIO';

  constructor(
    readonly file: string,
    readonly path: string,
    /** What is wrong, without file or path. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${file}: ${path}: ${problem}. Fix the scenario to match the OWASP Agent Security Regression Harness scenario format.`,
      { file, path },
      options,
    );
  }
}
