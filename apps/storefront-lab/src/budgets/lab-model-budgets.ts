import type { ModelCallBudgets } from '@verdict/nestjs';

/** The lab assistant's model name: what the price table prices. */
export const LAB_ASSISTANT_MODEL = 'lab-assistant';
/** The most output tokens the lab assistant's model allows: what each call reserves for its answer. */
export const LAB_ASSISTANT_MAX_TOKENS = 3_700;
/** The quarantined model's name (the "pay the bill in a file" lab): a cheaper model, priced on its own. */
export const LAB_QUARANTINE_MODEL = 'lab-quarantine';
/** The most output tokens the quarantined model allows: a bill's JSON is a few dozen. */
export const LAB_QUARANTINE_MAX_TOKENS = 100;

/** What a provider's tokenizer would count for `text` (about four bytes a token), for the scripted models' usage. */
export const providerTokens = (text: string): number => Math.ceil(new TextEncoder().encode(text).length / 4);

/**
 * The lab's token and cost budgets on every model call of a customer's agents — the assistant's, and the quarantined
 * model's bill readings: 4,000 tokens per customer per day, and 10,000 millicents (ten cents) per store per day, at
 * $3 and $15 per million input and output tokens for the assistant and $0.15 and $0.60 for the quarantined model.
 */
export const LAB_MODEL_BUDGETS = {
  // millicents per million tokens
  prices: {
    [LAB_ASSISTANT_MODEL]: { input: 300_000, output: 1_500_000 },
    [LAB_QUARANTINE_MODEL]: { input: 15_000, output: 60_000 },
  },
  budgets: [
    { name: 'assistant tokens', measure: 'tokens', limit: 4_000, per: 'actor', window: 86_400 },
    { name: 'assistant cost', measure: 'cost', limit: 10_000, per: 'tenant', window: 86_400 },
  ],
} as const satisfies ModelCallBudgets;
