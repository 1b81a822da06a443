import { VerdictError } from '@verdict/nestjs';

/**
 * The trace's effect events cannot be folded reliably (ambiguous order, malformed effect, dangling provenance).
 * Internal: `evaluateForbiddenState` turns it into an `error` verdict. Messages name event positions, never values.
 */
export class TrajectoryTraceError extends VerdictError {
  readonly code = 'VERDICT_TRAJECTORY_TRACE';
}
