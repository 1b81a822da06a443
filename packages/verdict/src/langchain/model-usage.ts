import { AIMessage } from '@langchain/core/messages';
import type { ModelUsage } from '../budgets/model-budget.gate.js';
import { reportedUsage } from '../budgets/reported-usage.js';
import { isStructuredAnswer } from './structured-answer.js';

/**
 * The usage the provider reported for one model call (LangChain's `usage_metadata` on the answer, or on the model's
 * message of a structured answer); `null` when there is none, or it is not a pair of token counts
 * with some input ({@link reportedUsage}).
 */
export function usageOf(response: unknown): ModelUsage | null {
  const message = isStructuredAnswer(response)
    ? response.messages.find((candidate) => AIMessage.isInstance(candidate))
    : response;
  if (!AIMessage.isInstance(message)) return null;
  const usage = message.usage_metadata;
  return reportedUsage(usage?.input_tokens, usage?.output_tokens);
}
