import type { ModelUsage } from './model-budget.gate.js';

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The usage a runtime reported for one model call, as the model-budget gate settles it: `null` when either total
 * is missing or not a token count (a non-negative safe integer), or when no input was counted (every call sends
 * input: a provider, proxy or SDK that reports zeros reported nothing), so that the call's estimate is kept.
 */
export function reportedUsage(inputTokens: unknown, outputTokens: unknown): ModelUsage | null {
  return isCount(inputTokens) && inputTokens > 0 && isCount(outputTokens) ? { inputTokens, outputTokens } : null;
}
