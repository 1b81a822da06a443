import {
  fingerprint,
  fingerprintString,
  type Disposition,
  type ExecutionResult,
  type JsonValue,
  type Stage,
} from '@verdict/nestjs';
import { InvalidObservationError } from './invalid-observation.error.js';
import { booleanFact, dispositionOrNull, stageOrNull } from './observation-facts.js';
import { ObservedToolCall, type ObservedToolCallInit } from './observed-tool-call.js';

/** An observation written by hand, e.g. for an agent loop that made several tool calls. */
export interface ObservationInit {
  /** The final Verdict disposition. Default: the last tool call's, or `null` when there was none. */
  readonly disposition?: Disposition | null;
  /** The stage of the final decision. Default: the last tool call's, or `null`. */
  readonly stage?: Stage | null;
  /**
   * Whether a protected action executed. Default: whether any tool call executed; `false` while a tool call
   * executed is refused. In an agent loop this and `disposition` summarize several calls, so they need not
   * agree (one call executed, the last was denied).
   */
  readonly executed?: boolean;
  /** What the agent or tool answered: a string or plain JSON. Omit when there was no output. */
  readonly output?: JsonValue;
  readonly toolCalls?: readonly (ObservedToolCallInit | ObservedToolCall)[];
  /** Side effects the application observed, by name (`'email.sent'`); only their SHA-256 is kept. */
  readonly sideEffects?: readonly string[];
  /** Trajectory effect events, in arrival order, for trajectory assertions; never reported. */
  readonly effects?: readonly unknown[];
}

/** What a test that called `VerdictService.execute` knows besides the result. A `Proposal` fits as is. */
export interface ExecutionObservation {
  /** The proposed arguments; only their fingerprint is kept. */
  readonly arguments: unknown;
  /** The output to judge. Default: the executor's output when the proposal executed, otherwise none. */
  readonly output?: JsonValue;
  readonly sideEffects?: readonly string[];
  readonly effects?: readonly unknown[];
}

/**
 * What a case's runner saw: the decision, whether anything executed, the output, the tool calls, the
 * application's side effects (hashed) and trajectory effects. Assertions read it; reports keep only its
 * fingerprints. The raw output stays in memory for assertions such as `outputExcludes`.
 *
 * @example
 * const proposal = { capability: 'orders.view', arguments: { orderId: 1001 } };
 * return Observation.fromExecutionResult(await verdict.execute(proposal), { ...proposal, sideEffects: sandbox.effects() });
 */
export class Observation {
  private constructor(
    readonly disposition: Disposition | null,
    readonly stage: Stage | null,
    readonly executed: boolean,
    /** The raw output, for assertions only; `undefined` when there was none. */
    readonly output: JsonValue | undefined,
    /** SHA-256 of the canonical JSON of `output`, or `null` when there was none. */
    readonly outputFingerprint: string | null,
    readonly toolCalls: readonly ObservedToolCall[],
    /** SHA-256 of each side-effect name, in the order observed (repeats kept). */
    readonly sideEffectFingerprints: readonly string[],
    readonly effects: readonly unknown[],
  ) {}

  /**
   * Builds an observation by hand.
   * @throws InvalidObservationError for an impossible observation; NonCanonicalValueError when the output or tool arguments are not plain JSON.
   */
  static of(init: ObservationInit = {}): Observation {
    if (typeof init !== 'object' || init === null)
      throw new InvalidObservationError('Observation.of expects an object');
    const toolCalls = Object.freeze(
      listOf(init.toolCalls, 'toolCalls').map((call) =>
        ObservedToolCall.of(call as ObservedToolCallInit | ObservedToolCall),
      ),
    );
    const last = toolCalls.at(-1);
    const disposition =
      init.disposition === undefined ? (last?.disposition ?? null) : dispositionOrNull(init.disposition, 'observation');
    const stage = init.stage === undefined ? (last?.stage ?? null) : stageOrNull(init.stage, 'observation');
    const anyCallExecuted = toolCalls.some((call) => call.executed);
    const executed = init.executed === undefined ? anyCallExecuted : booleanFact(init.executed, 'observation executed');
    if (!executed && anyCallExecuted) throw new InvalidObservationError('executed is false but a tool call executed');
    const output = init.output;
    return new Observation(
      disposition,
      stage,
      executed,
      output,
      output === undefined ? null : fingerprint(output),
      toolCalls,
      Object.freeze(listOf(init.sideEffects, 'sideEffects').map(sideEffectFingerprint)),
      Object.freeze([...listOf(init.effects, 'effects')]),
    );
  }

  /**
   * The observation of one Verdict call. The decision, the executed flag and the tool call come from the
   * result; the output defaults to the executor's output when the proposal executed.
   */
  static fromExecutionResult(result: ExecutionResult, observed: ExecutionObservation): Observation {
    if (typeof observed !== 'object' || observed === null || !('arguments' in observed)) {
      throw new InvalidObservationError(
        'fromExecutionResult needs the proposed arguments: pass the proposal or { arguments }',
      );
    }
    const output =
      observed.output !== undefined
        ? observed.output
        : result.executed
          ? (result.output as JsonValue | undefined)
          : undefined;
    return Observation.of({
      disposition: result.decision.disposition,
      stage: result.decision.stage,
      executed: result.executed,
      output,
      toolCalls: [ObservedToolCall.fromExecutionResult(result, observed.arguments)],
      sideEffects: observed.sideEffects,
      effects: observed.effects,
    });
  }
}

function listOf(value: readonly unknown[] | undefined, name: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidObservationError(`${name} must be an array`);
  return value;
}

function sideEffectFingerprint(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidObservationError('a side-effect name must be a non-empty string');
  return fingerprintString(name);
}
