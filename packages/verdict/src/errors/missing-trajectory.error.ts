import { VerdictError } from './verdict.error.js';

/**
 * A capability with `forbidStates` ran without a trajectory key: its scope gave none (`null`, `undefined` or a blank
 * string, which names nobody), e.g.
 * `TrajectoryScope.conversation()` in an action context without `metadata.conversationId`. A wiring fault,
 * never a decision.
 */
export class MissingTrajectoryError extends VerdictError {
  readonly code = 'VERDICT_MISSING_TRAJECTORY';

  constructor(capability: string, scope: string) {
    super(
      `Capability "${capability}" forbids states per ${scope}, but this call has no ${scope} key` +
        (scope === 'conversation'
          ? ': set metadata.conversationId in resolveContext, or choose a scope that outlives the chat.'
          : '.'),
      { capability, scope },
    );
  }
}
