/** Where an approval was checked, as recorded in evidence. */
export const ApprovalPhase = {
  /** Step 5: validated (read only) against the proposal target. */
  ProposalValidation: 'proposal_validation',
  /** Step 10: validated again against the execution target. */
  ExecutionValidation: 'execution_validation',
  /** Step 12: atomically consumed. */
  Consumption: 'consumption',
  /** A human approved or rejected through `ApprovalService`. */
  Decision: 'decision',
} as const;

export type ApprovalPhase = (typeof ApprovalPhase)[keyof typeof ApprovalPhase];
