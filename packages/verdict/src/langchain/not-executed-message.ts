import type { ExecutionResult } from '../vocabulary/execution-result.js';
import { publicAnswer } from '../public-answer.js';

export { readNotExecutedMessage, type NotExecutedAnswer } from '../public-answer.js';

/**
 * The fixed answer for a proposal that was not executed: `publicAnswer` of the core entry, kept under
 * its earlier name.
 *
 * @deprecated Use `publicAnswer(result, message)` from `@verdict/nestjs`.
 * @example
 * notExecutedMessage(result, 'I could not do that.') // '{"status":"not_executed",...}'
 */
export function notExecutedMessage(
  result: Extract<ExecutionResult, { executed: false }>,
  publicMessage: string,
): string {
  return publicAnswer(result, publicMessage);
}
