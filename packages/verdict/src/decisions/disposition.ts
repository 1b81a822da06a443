/** What Verdict decided about a proposal. Only `permit` lets the executor run. */
export const Disposition = {
  Permit: 'permit',
  Deny: 'deny',
  RequireConfirmation: 'require_confirmation',
  RequireReview: 'require_review',
  Throttle: 'throttle',
} as const;

export type Disposition = (typeof Disposition)[keyof typeof Disposition];
