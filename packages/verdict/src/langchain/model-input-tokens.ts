import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { StructuredTool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { inputTokenBound } from '../budgets/input-token-bound.js';

/** What one model call sends: the system message, the messages and the tools bound for the call. */
export interface ModelInput {
  readonly systemMessage?: BaseMessage;
  readonly messages: readonly BaseMessage[];
  readonly tools: readonly unknown[];
}

/**
 * An upper bound of a LangChain model call's input tokens without the provider's tokenizer: one token per UTF-8
 * byte of each message's content (and of an answer's tool calls) and of each tool's JSON schema, plus a fixed
 * overhead per message and per call. Byte-level tokenizers (GPT, Claude, Llama) never make more tokens than bytes,
 * so the reservation is never short; the usage the provider reports then gives the difference back.
 */
export function estimateInputTokens({ systemMessage, messages, tools }: ModelInput): number {
  const all = systemMessage === undefined ? messages : [systemMessage, ...messages];
  return inputTokenBound(
    all.map((message) =>
      AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0
        ? [message.content, message.tool_calls]
        : message.content,
    ),
    tools.map((tool) => (tool instanceof StructuredTool ? convertToOpenAITool(tool) : tool)),
  );
}
