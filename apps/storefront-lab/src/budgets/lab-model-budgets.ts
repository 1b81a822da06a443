import type { ModelCallBudgets } from '@verdict/nestjs';

/** The lab assistant's model name: what the price table prices. */
export const LAB_ASSISTANT_MODEL = 'lab-assistant';
/** The most output tokens the lab assistant's model allows: what each call reserves for its answer. */
export const LAB_ASSISTANT_MAX_TOKENS = 300;

/**
 * The lab's token and cost budgets on the assistant's model calls: 600 tokens per customer per day, and 1,000
 * millicents (one cent) per store per day, at $3 and $15 per million input and output tokens.
 */
export const LAB_MODEL_BUDGETS = {
  prices: { [LAB_ASSISTANT_MODEL]: { input: 300_000, output: 1_500_000 } }, // millicents per million tokens
  budgets: [
    { name: 'assistant tokens', measure: 'tokens', limit: 600, per: 'actor', window: 86_400 },
    { name: 'assistant cost', measure: 'cost', limit: 1_000, per: 'tenant', window: 86_400 },
  ],
} as const satisfies ModelCallBudgets;
