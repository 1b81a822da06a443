import { fingerprint, type JsonValue } from '@verdict/nestjs';
import { EvaluationCaseError } from './evaluation-case.error.js';

/** The two halves of a case's input, as written in a case definition. */
export interface CaseInputInit<TSetup = JsonValue, TUntrusted = JsonValue> {
  /** What the application controls: the actor, tenant, seeded records. */
  readonly trustedSetup: TSetup;
  /** What an attacker or a user controls: the request, a poisoned document, a captured model proposal. */
  readonly untrustedInput: TUntrusted;
}

/**
 * A case's input, with trusted setup and untrusted input kept apart and each fingerprinted when the case
 * is defined. Reports carry only the fingerprints. Both halves must be plain JSON.
 *
 * @example
 * const input = CaseInput.of({ trustedSetup: { actorId: 72 }, untrustedInput: { request: 'Where is order #1001?' } });
 * @throws EvaluationCaseError when either half is missing; NonCanonicalValueError when either is not plain JSON.
 */
export class CaseInput<TSetup = JsonValue, TUntrusted = JsonValue> {
  readonly trustedSetup: TSetup;
  readonly untrustedInput: TUntrusted;
  /** SHA-256 of the canonical JSON of `trustedSetup`. */
  readonly trustedSetupFingerprint: string;
  /** SHA-256 of the canonical JSON of `untrustedInput`. */
  readonly untrustedInputFingerprint: string;

  private constructor(init: CaseInputInit<TSetup, TUntrusted>) {
    this.trustedSetup = init.trustedSetup;
    this.untrustedInput = init.untrustedInput;
    this.trustedSetupFingerprint = fingerprint(init.trustedSetup);
    this.untrustedInputFingerprint = fingerprint(init.untrustedInput);
  }

  static of<TSetup = JsonValue, TUntrusted = JsonValue>(
    init: CaseInputInit<TSetup, TUntrusted> | CaseInput<TSetup, TUntrusted>,
  ): CaseInput<TSetup, TUntrusted> {
    if (init instanceof CaseInput) return init;
    if (typeof init !== 'object' || init === null || !('trustedSetup' in init) || !('untrustedInput' in init)) {
      throw new EvaluationCaseError(
        'the input must be an object with both `trustedSetup` and `untrustedInput` (use null or {} for an empty half)',
      );
    }
    return new CaseInput(init);
  }
}
