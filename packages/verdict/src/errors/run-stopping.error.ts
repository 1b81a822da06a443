import { VerdictError } from './verdict.error.js';

/**
 * An error that must end an agent run rather than become a message for the model: it refuses to become text —
 * `String(error)`, `${error}`, `'x' + error` throw the error itself — so an agent loop that would turn a tool's error
 * into a tool message (LangChain's ToolNode does) fails the run with it instead (ADR 0014).
 */
export abstract class RunStoppingError extends VerdictError {
  /** Throws this error: it never becomes model-facing text. */
  override toString(): never {
    throw this;
  }

  /** Throws this error (template literals, `+` and `String()` convert through here). */
  [Symbol.toPrimitive](): never {
    throw this;
  }
}
