import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { StructuredTool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

/** What one model call sends: the system message, the messages and the tools bound for the call. */
export interface ModelInput {
  readonly systemMessage?: BaseMessage;
  readonly messages: readonly BaseMessage[];
  readonly tools: readonly unknown[];
}

/** Tokens a provider adds around each message (role markers, separators), counted generously. */
const MESSAGE_OVERHEAD = 8;
/** Tokens a provider adds to every call (the reply's priming, the tool section's framing). */
const CALL_OVERHEAD = 16;

const encoder = new TextEncoder();
const bytesOf = (value: unknown): number => encoder.encode(JSON.stringify(value) ?? '').length;

/**
 * An upper bound of a model call's input tokens without the provider's tokenizer: one token per UTF-8 byte of each
 * message's content (and of an answer's tool calls) and of each tool's JSON schema, plus a fixed overhead per message
 * and per call. Byte-level tokenizers (GPT, Claude, Llama) never make more tokens than bytes, so the reservation
 * is never short; the usage the provider reports then gives the difference back.
 */
export function estimateInputTokens({ systemMessage, messages, tools }: ModelInput): number {
  const all = systemMessage === undefined ? messages : [systemMessage, ...messages];
  let tokens = CALL_OVERHEAD;
  for (const message of all) {
    tokens += MESSAGE_OVERHEAD + bytesOf(message.content);
    if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) tokens += bytesOf(message.tool_calls);
  }
  for (const tool of tools) tokens += bytesOf(tool instanceof StructuredTool ? convertToOpenAITool(tool) : tool);
  return tokens;
}
