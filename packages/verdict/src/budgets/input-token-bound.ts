/** Tokens a provider adds around each message (role markers, separators), counted generously. */
const MESSAGE_OVERHEAD = 8;
/** Tokens a provider adds to every call (the reply's priming, the tool section's framing). */
const CALL_OVERHEAD = 16;

const encoder = new TextEncoder();

/** The UTF-8 length of `value`'s JSON. */
function bytesOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? '').length;
}

/**
 * An upper bound of a model call's input tokens without the provider's tokenizer, whatever the runtime: one token
 * per UTF-8 byte of each message's JSON and of each tool definition's (and output schema's), plus a fixed overhead
 * per message and per call. Byte-level tokenizers (GPT, Claude, Llama) never make more tokens than bytes, so a
 * reservation made from it is never short of what it is given; the usage the provider reports then gives the
 * difference back. It counts only what the call carries: history the provider keeps (a previous response or a
 * conversation it stores) and images or files passed by URL (few bytes, many tokens) need the application's own
 * estimate.
 */
export function inputTokenBound(messages: readonly unknown[], tools: readonly unknown[]): number {
  let tokens = CALL_OVERHEAD;
  for (const message of messages) tokens += MESSAGE_OVERHEAD + bytesOf(message);
  for (const tool of tools) tokens += bytesOf(tool);
  return tokens;
}
