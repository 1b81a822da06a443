import { Logger } from '@nestjs/common';
import { type Span, SpanKind, SpanStatusCode, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { Stage } from '../decisions/stage.js';
import { CallCeilingReachedError } from '../errors/call-ceiling-reached.error.js';
import { policyStopOf } from '../errors/policy-stop.js';
import type { ToolKind } from '../evidence/tool-kind.js';
import { type PauseSignal, isPauseOf } from '../execution-claims/execution-claim.gate.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';

/** The tracer Verdict's spans come from (`trace.getTracer(VERDICT_TRACER_NAME)`). */
export const VERDICT_TRACER_NAME = '@verdict/nestjs';

/**
 * The attributes of a mediated tool call's span: the OpenTelemetry GenAI `execute_tool` conventions plus Verdict's
 * own. Values are names, labels and fingerprints only: never arguments, outputs, raw tool-call ids or reasons.
 */
export const TOOL_CALL_SPAN_ATTRIBUTES = {
  /** Always `execute_tool`. */
  operationName: 'gen_ai.operation.name',
  /** The capability the model proposed (`unknown:<sha256>` for a name no capability has). */
  toolName: 'gen_ai.tool.name',
  /** Always `function`. */
  toolType: 'gen_ai.tool.type',
  /** `sha256(toolCallId)`, as in evidence; absent when the proposal had none. */
  toolCallId: 'gen_ai.tool.call.id',
  capability: 'verdict.capability',
  toolKind: 'verdict.tool_kind',
  correlationId: 'verdict.correlation_id',
  /** The stage of the final decision (`execution` for a bound call that ran, `proposal` for a guarded one). */
  stage: 'verdict.stage',
  disposition: 'verdict.disposition',
  executed: 'verdict.executed',
  /** `true` when the executor paused the run to ask a human (`InvocationOptions.isPause`): not a failure (ADR 0177). */
  paused: 'verdict.paused',
  /**
   * What stopped the agent run, a policy stop and not a failure (ADR 0189, ADR 0197): `call_ceiling` when a call the
   * executor made (a sub-agent's) reached a call ceiling (`CallCeilingReachedError`; the refused call's own span holds
   * its `deny`); `model_budget` when a model call of the executor's (a sub-agent's model, the quarantined model) found
   * no room in a model budget (`ModelBudgetExceededError`). Either is read through the `cause` chain of what the run
   * threw: LangChain hands a middleware's error over as its `MiddlewareError`'s `cause`.
   */
  stoppedAt: 'verdict.stopped_at',
  /** On an application fault: the error's class name (its message may hold raw values and is never recorded). */
  errorType: 'error.type',
} as const;

const A = TOOL_CALL_SPAN_ATTRIBUTES;

/** What the span of one mediated tool call is about, known before the pipeline runs. */
export interface ToolCallSubject {
  readonly capability: string;
  readonly toolKind: ToolKind;
  readonly correlationId: string;
  readonly toolCallFingerprint: string | null;
}

/** The tracer of the global provider it was taken from: taken again only when that provider is replaced. */
let current: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * Verdict's tracer, once per global tracer provider rather than once per call. The global provider stays the
 * same object while an SDK registers behind it (its tracers delegate once one does); `trace.disable()` replaces it.
 */
function verdictTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(VERDICT_TRACER_NAME) };
  return current.tracer;
}

/**
 * Runs one pass through the pipeline inside an active `execute_tool <capability>` span (INTERNAL): the decision's
 * stage and disposition are set when it returns; an exception propagates unchanged, and is marked by
 * {@link markThrown}: an application fault sets status ERROR and `error.type`, the runtime's pause (`isPause`) and a
 * policy stop of the agent run (a call ceiling, a model budget) leave the status unset (ADR 0189, ADR 0197). Through
 * `@opentelemetry/api` only: without a registered SDK it is a no-op.
 *
 * Telemetry never changes the call's outcome (ADR 0165): a tracer or span that throws is logged once and dropped,
 * the result is answered and a fault rethrown as it is; a tracer that cannot start the span runs the call without
 * one. The pass runs once, however the tracer calls back (never, after throwing, or twice).
 */
export function withToolCallSpan<T extends ExecutionResult<unknown>>(
  subject: ToolCallSubject,
  run: () => Promise<T>,
  isPause?: PauseSignal,
): Promise<T> {
  const attributes = {
    [A.operationName]: 'execute_tool',
    [A.toolName]: subject.capability,
    [A.toolType]: 'function',
    [A.capability]: subject.capability,
    [A.toolKind]: subject.toolKind,
    [A.correlationId]: subject.correlationId,
    ...(subject.toolCallFingerprint === null ? {} : { [A.toolCallId]: subject.toolCallFingerprint }),
  };
  let running: Promise<T> | undefined;
  let answered: Promise<T> | undefined;
  let spanned: Span | undefined;
  try {
    verdictTracer().startActiveSpan(
      `execute_tool ${subject.capability}`,
      { kind: SpanKind.INTERNAL, attributes },
      // One promise, not an async function's two: this wraps every proposal.
      (span) => {
        // Called back again, or after the call ran without a span: the call is not run again; a span of its own (not
        // the one the first callback ends with the outcome) is ended.
        if (running !== undefined) {
          if (span !== spanned) settle(span, () => undefined);
          return running;
        }
        spanned = span;
        running = started(run);
        return (answered = running.then(
          (result) => {
            settle(span, () => {
              if (span.isRecording())
                span.setAttributes({
                  [A.stage]: result.decision.stage,
                  [A.disposition]: result.decision.disposition,
                  [A.executed]: result.executed,
                });
            });
            return result;
          },
          (error: unknown) => {
            settle(span, () => markThrown(span, error, isPause));
            throw error;
          },
        ));
      },
    );
  } catch (error) {
    telemetryFailed(error);
  }
  // What the tracer answered is not used: a tracer may answer something else than the callback's promise.
  return answered ?? (running ??= started(run));
}

/**
 * Marks what the run threw (ADR 0189, ADR 0197). Not a failure, status unset: the executor's runtime pausing the run
 * to ask a human (`verdict.paused`, as `isPause` recognises it; a recogniser that throws answers no), and a policy stop
 * of the agent run the executor met, a call ceiling or a model budget (`verdict.stopped_at`, like a refusal).
 * Anything else is an application fault: status ERROR and `error.type`, the class name only.
 */
function markThrown(span: Span, error: unknown, isPause: PauseSignal | undefined): void {
  if (!span.isRecording()) return;
  if (isPauseOf(isPause, error)) {
    span.setAttribute(A.paused, true);
    return;
  }
  const stoppedAt = stoppedAtOf(error);
  if (stoppedAt !== undefined) {
    span.setAttribute(A.stoppedAt, stoppedAt);
    return;
  }
  // The status first: a fault is marked ERROR even when naming its class throws (a `constructor` getter).
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(A.errorType, errorTypeOf(error));
}

/** The class name of what was thrown (`typeof` for a non-error); `Error` when reading it throws. */
function errorTypeOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.constructor.name) : typeof error;
  } catch {
    return 'Error';
  }
}

/** `verdict.stopped_at` of a model budget's stop: no stage of the pipeline, a model call is no proposal (ADR 0100). */
const MODEL_BUDGET_STOP = 'model_budget';

/**
 * `verdict.stopped_at` of the policy stop of an agent run that `error` is, or that its `cause` chain leads to (ADR
 * 0197, read by {@link policyStopOf}): a wrapper's cause (LangChain's `MiddlewareError`, a tool's
 * `ApplicationFaultError`) is still that stop. `undefined` for anything else, and when walking the chain throws (a
 * `cause` getter, a proxy's trap): such a fault is no stop, marked ERROR.
 */
function stoppedAtOf(error: unknown): typeof Stage.CallCeiling | typeof MODEL_BUDGET_STOP | undefined {
  const stop = policyStopOf(error);
  if (stop === undefined) return undefined;
  return stop instanceof CallCeilingReachedError ? Stage.CallCeiling : MODEL_BUDGET_STOP;
}

/** `run`'s promise; a synchronous throw as its rejection. */
function started<T>(run: () => Promise<T>): Promise<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Marks the span as `mark` does, then ends it; a span that throws is dropped (the call's outcome stands). */
function settle(span: Span, mark: () => void): void {
  try {
    try {
      mark();
    } finally {
      span.end();
    }
  } catch (error) {
    telemetryFailed(error);
  }
}

let reported = false;

/** Logs, once per process, that the tracer or one of its spans threw: what the call answered stands. */
function telemetryFailed(error: unknown): void {
  if (reported) return;
  reported = true;
  new Logger('Verdict').error(
    "The OpenTelemetry tracer failed; tool calls go on with their outcomes unchanged, their spans' failures dropped",
    error,
  );
}
