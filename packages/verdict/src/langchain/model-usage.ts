import { AIMessage } from '@langchain/core/messages';
import type { ModelUsage } from '../budgets/model-budget.gate.js';
import { isStructuredAnswer } from './structured-answer.js';
import { usageMetadataOf } from './usage-metadata.js';

/**
 * The usage the provider reported for one model call (LangChain's `usage_metadata` on the answer, or on the model's
 * message of a structured answer); `null` when there is none, or it is not a pair of token counts
 * with some input ({@link usageMetadataOf}).
 */
export function usageOf(response: unknown): ModelUsage | null {
  const message = isStructuredAnswer(response)
    ? response.messages.find((candidate) => AIMessage.isInstance(candidate))
    : response;
  if (!AIMessage.isInstance(message)) return null;
  return usageMetadataOf(message);
}
