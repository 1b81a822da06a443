import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { StructuredTool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { type JSONSchema, toJsonSchema } from '@langchain/core/utils/json_schema';
import { ProviderStrategy, ToolStrategy } from 'langchain';
import { inputTokenBound } from '../budgets/input-token-bound.js';

/** What one model call sends: the system message, the messages, the tools bound for the call and its output schema. */
export interface ModelInput {
  readonly systemMessage?: BaseMessage;
  readonly messages: readonly BaseMessage[];
  readonly tools: readonly unknown[];
  /**
   * The call's structured-output format (`createAgent`'s `responseFormat`, or a middleware's for the call): a zod or
   * Standard schema, a JSON schema, `toolStrategy(...)` / `providerStrategy(...)`, or an array of them. LangChain
   * binds it as a tool or sends it as the provider's response schema after every middleware ran.
   */
  readonly responseFormat?: unknown;
}

/**
 * An upper bound of a LangChain model call's input tokens without the provider's tokenizer: one token per UTF-8
 * byte of what each message sends (its content, an answer's tool calls — once, as the provider is sent them — its
 * name, a tool result's call id and the provider fields in `additional_kwargs`, such as reasoning items), of each
 * tool's JSON schema and of the structured-output format's JSON schema, plus a fixed overhead per message and per
 * call. Byte-level tokenizers (GPT, Claude, Llama) never make more tokens than bytes, so the reservation is never
 * short of what the call carries; the usage the provider reports then gives the difference back. It cannot count
 * what the call does not carry: images or files passed by URL (few bytes, many tokens), or history the provider
 * keeps. For those, pass your own `estimateInputTokens`.
 */
export function estimateInputTokens({ systemMessage, messages, tools, responseFormat }: ModelInput): number {
  const all = systemMessage === undefined ? messages : [systemMessage, ...messages];
  return inputTokenBound(
    all.map((message) => ({
      content: message.content,
      tool_calls: AIMessage.isInstance(message) ? message.tool_calls : undefined,
      name: message.name,
      tool_call_id: ToolMessage.isInstance(message) ? message.tool_call_id : undefined,
      additional_kwargs: providerFields(message),
    })),
    [
      ...tools.map((tool) => (tool instanceof StructuredTool ? convertToOpenAITool(tool) : tool)),
      ...formatSchemas(responseFormat),
    ],
  );
}

/**
 * The provider fields a message sends. An OpenAI answer keeps the provider's raw tool calls in
 * `additional_kwargs.tool_calls` next to its parsed `tool_calls`; LangChain's OpenAI converters send the parsed ones
 * when there are any, else the raw copy — never both. (`function_call`, a legacy call, is sent as it is.)
 */
function providerFields(message: BaseMessage): Record<string, unknown> {
  if (!AIMessage.isInstance(message) || !message.tool_calls?.length) return message.additional_kwargs;
  const { tool_calls: _sentFromToolCalls, ...sent } = message.additional_kwargs;
  return sent;
}

/** What LangChain sends for `responseFormat`: a tool strategy's tool, otherwise the format's JSON schema. */
function formatSchemas(format: unknown): unknown[] {
  if (format === undefined || format === null) return [];
  if (Array.isArray(format)) return format.flatMap(formatSchemas);
  if (format instanceof ToolStrategy) return [format.tool];
  if (format instanceof ProviderStrategy) return [toJsonSchema(format.schema as JSONSchema)];
  return [toJsonSchema(format as JSONSchema)];
}
