import { AIMessage } from '@langchain/core/messages';
import type { ModelUsage } from '../budgets/model-budget.gate.js';
import { isStructuredAnswer } from './structured-answer.js';

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The usage the provider reported for one model call (LangChain's `usage_metadata` on the answer, or on the model's
 * message of a structured answer); `null` when there is none, or it is not a pair of token counts.
 */
export function usageOf(response: unknown): ModelUsage | null {
  const message = isStructuredAnswer(response)
    ? response.messages.find((candidate) => AIMessage.isInstance(candidate))
    : response;
  if (!AIMessage.isInstance(message)) return null;
  const usage = message.usage_metadata;
  if (usage === undefined || !isCount(usage.input_tokens) || !isCount(usage.output_tokens)) return null;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
}
