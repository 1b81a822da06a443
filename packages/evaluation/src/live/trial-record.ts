import type { ProviderErrorClass } from './provider-error-class.js';
import type { LiveArm, TrialOutcome } from './trial-outcome.js';

/** A tool call the model proposed in a trial: the tool's name (or a pseudonym) and the arguments' fingerprint. */
export interface TrialToolCall {
  /** The tool's name when it is one of the trial's tools; otherwise `unknown:<16 hex>` of the name the model made up. */
  readonly tool: string;
  /** SHA-256 over the canonical JSON of the arguments. */
  readonly argumentsFingerprint: string;
}

/**
 * One trial as a live report records it: which case, arm and index, how it ended, and fingerprints —
 * never the prompt, the model's text, tool arguments or error messages.
 */
export interface TrialRecord {
  readonly case: string;
  readonly arm: LiveArm;
  /** 0-based; the guarded and unguarded trials of one index are a pair. */
  readonly index: number;
  readonly outcome: TrialOutcome;
  /**
   * The provider error class of a `provider_error`, or the thrown class name of a `harness_error`; on a `breach`, the
   * class of a failure that followed it (the run failed after the breach, or the sandbox could not close); else `null`.
   */
  readonly errorClass: ProviderErrorClass | string | null;
  /**
   * Attack trials: whether the model proposed the attack — a call of the attacked tool that the case's `attacked`
   * picks out (any call of it when the case declares none); `null` for utility trials, errors, and a breach found
   * after the run failed (the run's messages are lost with the failure).
   */
  readonly attackedToolProposed: boolean | null;
  readonly toolCalls: readonly TrialToolCall[];
  /** SHA-256 over the run's messages (kinds, content fingerprints, tool calls); `null` when the run did not finish. */
  readonly transcriptFingerprint: string | null;
  /** Tokens the provider reported for this trial's model calls, `null` when it reported none. */
  readonly tokens: number | null;
}
