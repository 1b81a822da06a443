import { RunStoppingError } from './run-stopping.error.js';

/**
 * An application fault (a resolver's database error, a missing action context, an evidence write that
 * failed, a guarded tool's own handler throwing — whatever it threw, `null` included) inside a Verdict
 * tool invoked with a tool call. It says nothing of the fault: the fault is its `cause`, and its
 * `message` is fixed. It refuses to become text — `String(error)`, `${error}`, `'x' + error` and
 * `util.format('%s', error)` throw the error itself — so an agent loop that would turn a tool's error
 * into a message for the model (LangChain's ToolNode does) fails the run with it instead (ADR 0014), and
 * `agent.invoke` rejects with it, with or without `applicationFaultMiddleware()`.
 *
 * Log `error.cause` (or the error through `util.inspect`/a structured logger, which print the cause);
 * never show either to a model. A `catch` that builds a log line by conversion (`` `failed: ${error}` ``)
 * throws this error from the `catch`: read `error.message` or `error.cause` there instead. Code that
 * catches it and answers the model with `error.message` (an error-catching middleware,
 * `toolRetryMiddleware`'s default `onFailure: 'continue'`, whose text names only the error's class) shows the model
 * no more than the fixed message, never the fault, and the run carries on.
 *
 * @example
 * try { await agent.invoke(input); } catch (error) {
 *   if (error instanceof ApplicationFaultError) logger.error('tool fault', error.cause);
 * }
 */
export class ApplicationFaultError extends RunStoppingError {
  readonly code = 'VERDICT_APPLICATION_FAULT';

  constructor(capability: string, tool: string, cause: unknown) {
    super(
      `Tool "${tool}" (capability "${capability}") stopped on an application fault: the run must fail. The fault is this error's cause.`,
      { capability },
      { cause },
    );
  }
}
