import { fingerprint, type Disposition, type ExecutionResult, type Stage } from '@verdict/nestjs';
import { InvalidObservationError } from './invalid-observation.error.js';
import { booleanFact, checkExecutedUnderDecision, dispositionOrNull, stageOrNull } from './observation-facts.js';

const FINGERPRINT = /^[0-9a-f]{64}$/;

/** A tool call as written by hand: the raw arguments (fingerprinted on the spot) or their fingerprint. */
export type ObservedToolCallInit = {
  readonly capability: string;
  /** The Verdict disposition, or `null` for a tool that does not pass through Verdict. */
  readonly disposition: Disposition | null;
  readonly stage?: Stage | null;
  readonly executed: boolean;
} & ({ readonly arguments: unknown } | { readonly argumentsFingerprint: string });

/**
 * One tool call an agent made during a run: capability, argument fingerprint, decision and whether the
 * executor ran. Raw arguments are never kept.
 *
 * @example
 * const call = ObservedToolCall.fromExecutionResult(await verdict.execute(proposal), proposal.arguments);
 */
export class ObservedToolCall {
  private constructor(
    /** The capability name as proposed; it may be model-written, so reports print it only when well formed. */
    readonly capability: string,
    /** SHA-256 of the canonical JSON of the proposed arguments. */
    readonly argumentsFingerprint: string,
    readonly disposition: Disposition | null,
    readonly stage: Stage | null,
    readonly executed: boolean,
  ) {}

  /** @throws InvalidObservationError for an impossible call; NonCanonicalValueError when `arguments` is not plain JSON. */
  static of(init: ObservedToolCallInit | ObservedToolCall): ObservedToolCall {
    if (init instanceof ObservedToolCall) return init;
    if (typeof init !== 'object' || init === null) throw new InvalidObservationError('a tool call must be an object');
    if (typeof init.capability !== 'string' || init.capability.length === 0)
      throw new InvalidObservationError('a tool call needs a capability name');
    const disposition = dispositionOrNull(init.disposition, 'tool call');
    const executed = booleanFact(init.executed, 'tool call executed');
    checkExecutedUnderDecision(executed, disposition, 'tool call');
    return new ObservedToolCall(
      init.capability,
      argumentsFingerprintOf(init),
      disposition,
      stageOrNull(init.stage, 'tool call'),
      executed,
    );
  }

  /** The call behind a Verdict result (`VerdictService.execute` / `evaluate`), with the arguments that were proposed. */
  static fromExecutionResult(result: ExecutionResult, proposedArguments: unknown): ObservedToolCall {
    return ObservedToolCall.of({
      capability: result.capability,
      arguments: proposedArguments,
      disposition: result.decision.disposition,
      stage: result.decision.stage,
      executed: result.executed,
    });
  }
}

function argumentsFingerprintOf(init: ObservedToolCallInit): string {
  if ('argumentsFingerprint' in init) {
    if (typeof init.argumentsFingerprint !== 'string' || !FINGERPRINT.test(init.argumentsFingerprint)) {
      throw new InvalidObservationError('argumentsFingerprint must be a lowercase SHA-256 hex digest');
    }
    return init.argumentsFingerprint;
  }
  if (!('arguments' in init)) throw new InvalidObservationError('a tool call needs its arguments or their fingerprint');
  return fingerprint(init.arguments);
}
