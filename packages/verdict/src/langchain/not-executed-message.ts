import { Disposition } from '../decisions/disposition.js';
import type { ExecutionResult } from '../pipeline/execution-result.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/** The four fields of Verdict's answer for a proposal that was not executed. */
export interface NotExecutedAnswer {
  readonly status: 'not_executed';
  readonly capability: string;
  readonly decision: Disposition;
  readonly message: string;
}

/**
 * The only thing the model learns about a proposal that was not executed: the capability, the
 * disposition and the fixed public message. Internal reasons stay in evidence.
 */
export function notExecutedMessage(result: Extract<ExecutionResult, { executed: false }>, publicMessage: string): string {
  const answer: NotExecutedAnswer = { status: 'not_executed', capability: result.capability, decision: result.decision.disposition, message: publicMessage };
  return JSON.stringify(answer);
}

/** Reads a tool's text as Verdict's `not_executed` answer: exactly its four fields and a known disposition, else `null`. */
export function readNotExecutedMessage(text: string): NotExecutedAnswer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(parsed)) return null;
  const { status, capability, decision, message, ...rest } = parsed as Record<string, unknown>;
  const exact =
    Object.keys(rest).length === 0 &&
    status === 'not_executed' &&
    typeof capability === 'string' &&
    typeof message === 'string' &&
    Object.values(Disposition).includes(decision as Disposition);
  return exact ? { status, capability, decision: decision as Disposition, message } : null;
}
