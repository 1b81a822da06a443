import { VerdictError } from './verdict.error.js';

/**
 * A capability with `forbidStates` ran without a trajectory to fold into: the action context has no
 * `metadata.conversationId` and the policy has no `trajectory` function. A wiring fault, never a decision.
 */
export class MissingTrajectoryError extends VerdictError {
  readonly code = 'VERDICT_MISSING_TRAJECTORY';

  constructor(capability: string) {
    super(
      `Capability "${capability}" forbids states per conversation, but the action context has no metadata.conversationId: set it in resolveContext, or pass forbidStates(model, effectOf, { trajectory }).`,
      { capability },
    );
  }
}
