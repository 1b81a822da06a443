import type { ModelUsage } from '../budgets/model-budget.gate.js';
import { reportedUsage } from '../budgets/reported-usage.js';

/**
 * The usage a LangChain chat model's answer reports — its `usage_metadata` (`input_tokens`, `output_tokens`) — as the
 * model budgets settle it: `null` when there is none, or it is not a pair of token counts with some input
 * ({@link reportedUsage}). Read by shape, so that it loads nothing of LangChain: the quarantined model's answer is
 * read with it in the root entry point.
 */
export function usageMetadataOf(answer: unknown): ModelUsage | null {
  type Reported = { readonly usage_metadata?: { readonly input_tokens?: unknown; readonly output_tokens?: unknown } };
  const usage = (answer as Reported | null | undefined)?.usage_metadata;
  return reportedUsage(usage?.input_tokens, usage?.output_tokens);
}
