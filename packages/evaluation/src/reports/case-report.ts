import type { Disposition, JsonValue, Stage } from '@verdict/nestjs';
import type { CasePurpose } from '../cases/case-purpose.js';
import type { CaseStatus } from '../cases/case-status.js';

/** The fingerprints of a case's input halves. */
export interface ReportedInput {
  readonly trustedSetupFingerprint: string;
  readonly untrustedInputFingerprint: string;
}

/** A tool call as reported: the capability name only when well formed, its fingerprint always. */
export interface ReportedToolCall {
  readonly capability: string | null;
  readonly capabilityFingerprint: string;
  readonly argumentsFingerprint: string;
  readonly disposition: Disposition | null;
  readonly stage: Stage | null;
  readonly executed: boolean;
}

/** An observation as reported: decisions and fingerprints, no raw output, arguments or side-effect names. */
export interface ReportedObservation {
  readonly disposition: Disposition | null;
  readonly stage: Stage | null;
  readonly executed: boolean;
  readonly outputFingerprint: string | null;
  readonly toolCalls: readonly ReportedToolCall[];
  readonly sideEffectFingerprints: readonly string[];
}

/** One assertion's outcome; `evidence` is omitted when the assertion gave none. */
export interface AssertionResult {
  readonly id: string;
  readonly passed: boolean;
  readonly evidence?: JsonValue;
}

/** Where a harness error happened. */
export const HarnessPhase = {
  Runner: 'runner',
  Assertion: 'assertion',
} as const;

export type HarnessPhase = (typeof HarnessPhase)[keyof typeof HarnessPhase];

/** A runner or assertion that threw: the class name only, never the message (it may quote raw input). */
export interface HarnessError {
  readonly phase: HarnessPhase;
  /** The assertion that threw, for phase `assertion`; otherwise `null`. */
  readonly assertionId: string | null;
  readonly errorClass: string;
}

/**
 * One case in a report. Invariants (checked when a report is parsed):
 * - `passed`: an observation, no harness error, at least one assertion, all passed;
 * - `failed`: an observation, no harness error, at least one failed assertion;
 * - `error`: a harness error and no assertion results; an observation only when an assertion threw;
 * - `pending`: no observation, no assertion results, no harness error.
 * `input` is `null` only for a pending case declared without one.
 */
export interface CaseReport {
  readonly id: string;
  readonly version: string;
  readonly purpose: CasePurpose;
  readonly status: CaseStatus;
  readonly input: ReportedInput | null;
  readonly observation: ReportedObservation | null;
  readonly assertions: readonly AssertionResult[];
  readonly harnessError: HarnessError | null;
}
