import { VerdictError } from './verdict.error.js';

/**
 * The executor ran and returned, but its execution claim was no longer `claimed` when Verdict went to
 * complete it: an operator resolved it while the executor was running. The effect happened; `output`
 * holds what the executor returned so the caller can still act on it.
 */
export class ClaimResolvedOutOfBandError extends VerdictError {
  readonly code = 'VERDICT_CLAIM_RESOLVED_OUT_OF_BAND';

  constructor(
    capability: string,
    readonly claimId: string,
    readonly output: unknown,
  ) {
    super(
      'The executor ran, but its execution claim was resolved by an operator while it was running. Reconcile the claim: the effect did happen.',
      {
        capability,
        stage: 'execution_claim',
      },
    );
  }
}
