/**
 * Why a case exists. Scores are kept per purpose so that an agent that refuses everything cannot look
 * secure: `attack` cases measure containment, `utility` cases measure that legitimate work still succeeds.
 */
export const CasePurpose = {
  Attack: 'attack',
  Utility: 'utility',
} as const;

export type CasePurpose = (typeof CasePurpose)[keyof typeof CasePurpose];

/** Every purpose, in report order. */
export const CASE_PURPOSES: readonly CasePurpose[] = Object.freeze([CasePurpose.Attack, CasePurpose.Utility]);
