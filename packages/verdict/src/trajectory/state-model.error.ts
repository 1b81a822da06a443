import { VerdictError } from '../errors/verdict.error.js';

/**
 * A state model that cannot be compiled. `problems` lists every problem found, each naming its path inside the model,
 * e.g. `transitions[2].add.count: field is not numeric (initial.count is a string)`. Fix the model; nothing was compiled.
 */
export class StateModelError extends VerdictError {
  readonly code = 'VERDICT_STATE_MODEL';

  constructor(readonly problems: readonly string[]) {
    super(
      `Invalid state model (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.join('; ')}`,
      { problemCount: problems.length },
    );
    this.problems = Object.freeze([...problems]);
  }
}
