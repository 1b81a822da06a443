/** The states of an execution claim (docs/execution-claims-and-rate-limits.md). */
export const ExecutionClaimStatus = {
  /** Admitted; its executor is running (or its process died while running it). */
  Claimed: 'claimed',
  /** The executor returned, or an operator confirmed the effect happened. */
  Completed: 'completed',
  /** The executor threw: whether the effect happened is unknown until an operator reconciles it. */
  Indeterminate: 'indeterminate',
  /** An operator confirmed nothing happened: the next identical operation may be admitted once (attempt + 1). */
  Released: 'released',
} as const;

export type ExecutionClaimStatus = (typeof ExecutionClaimStatus)[keyof typeof ExecutionClaimStatus];
