import type { ExecutionResult } from '../pipeline/execution-result.js';

/**
 * The only thing the model learns about a proposal that was not executed: the capability, the
 * disposition and the fixed public message. Internal reasons stay in evidence.
 */
export function notExecutedMessage(result: Extract<ExecutionResult, { executed: false }>, publicMessage: string): string {
  return JSON.stringify({ status: 'not_executed', capability: result.capability, decision: result.decision.disposition, message: publicMessage });
}
