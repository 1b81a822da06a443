import { VerdictError } from './verdict.error.js';

/**
 * An application fault (a resolver's database error, a missing action context, an evidence write that
 * failed, a guarded tool's own handler throwing) inside a Verdict tool invoked with a tool call. It says
 * nothing of the fault: the fault is its `cause`. It refuses to become text — `String(error)` and
 * `${error}` rethrow the fault — so an agent loop that would turn a tool's error into a message for the
 * model (LangChain's ToolNode does) fails the run with the original fault instead (ADR 0014).
 * Log `error.cause`; never show either to a model.
 *
 * @example
 * try { await tool.invoke(toolCall); } catch (error) {
 *   if (error instanceof ApplicationFaultError) logger.error(error.cause);
 * }
 */
export class ApplicationFaultError extends VerdictError {
  readonly code = 'VERDICT_APPLICATION_FAULT';

  constructor(capability: string, tool: string, cause: unknown) {
    super(
      `Tool "${tool}" (capability "${capability}") stopped on an application fault: the run must fail. The fault is this error's cause.`,
      { capability },
      { cause },
    );
  }

  /** Rethrows the fault: this error never becomes model-facing text. */
  override toString(): never {
    throw this.cause;
  }

  /** Rethrows the fault (template literals and `String()` convert through here). */
  [Symbol.toPrimitive](): never {
    throw this.cause;
  }
}
