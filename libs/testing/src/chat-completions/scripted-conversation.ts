import { readAssistantInstructions } from '@verdict/nestjs/testing';
import type {
  ChatCompletionHandler,
  ChatCompletionMessage,
  ChatCompletionReply,
  ChatCompletionRequest,
} from './chat-completions-server.js';

/** Tool-call ids the server gives calls it made because an injected instruction asked for them. */
const INJECTED = 'injected-';

/**
 * A handler that plays `turns` by position in the conversation: the reply to a request is the turn whose
 * index is the number of the model's own (non-injected) messages so far. Stateless, so concurrent
 * conversations on one server never interfere. A turn may be a function of the request.
 *
 * @example
 * const handler = scriptedConversation([{ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 1002 } }] }, { text: 'A rain jacket.' }]);
 */
export function scriptedConversation(
  turns: readonly (ChatCompletionReply | ((request: ChatCompletionRequest) => ChatCompletionReply))[],
): ChatCompletionHandler {
  return (request) => {
    const position = request.messages.filter(
      (message) => message.role === 'assistant' && !(message.tool_calls ?? []).some((c) => c.id.startsWith(INJECTED)),
    ).length;
    const turn = turns[position];
    if (turn === undefined) return { status: 500, error: `the script has no turn ${position + 1}` };
    return typeof turn === 'function' ? turn(request) : turn;
  };
}

/**
 * Wraps a handler so the server behaves like a manipulated model: when the tool results since the
 * model's last message hold instruction lines of the fixed form (`ASSISTANT INSTRUCTION: call <tool> with
 * <json>`, see `readAssistantInstructions`), it answers with those calls (ids `injected-<n>`); otherwise it
 * asks `inner`. The same form the in-process `InjectionFollowingChatModel` obeys.
 *
 * @example
 * const handler = followingInjections(scriptedConversation([{ toolCalls: [{ name: 'lookup_order', arguments: { orderId: 1002 } }] }, { text: 'Done.' }]));
 */
export function followingInjections(inner: ChatCompletionHandler): ChatCompletionHandler {
  return (request, index) => {
    const instructions = freshToolResults(request.messages).flatMap((text) => readAssistantInstructions(text));
    if (instructions.length === 0) return inner(request, index);
    return {
      toolCalls: instructions.map((instruction, position) => ({
        name: instruction.tool,
        arguments: instruction.args,
        id: `${INJECTED}${index}-${position}`,
      })),
    };
  };
}

/**
 * Routes each request by its first user message: conversations of several cases on one server.
 * An unknown message is answered with a 500, which the client reports as a server error.
 *
 * @example
 * const handler = byUserMessage({ 'What did I order in 1002?': lookupScript, 'Cancel my order 1002': cancelScript });
 */
export function byUserMessage(routes: Readonly<Record<string, ChatCompletionHandler>>): ChatCompletionHandler {
  return (request, index) => {
    const first = request.messages.find((message) => message.role === 'user');
    const route = first === undefined ? undefined : routes[textOf(first.content)];
    return route === undefined ? { status: 500, error: 'no script for this conversation' } : route(request, index);
  };
}

function freshToolResults(messages: readonly ChatCompletionMessage[]): string[] {
  const last = messages.findLastIndex((message) => message.role === 'assistant');
  return messages
    .slice(last + 1)
    .filter((message) => message.role === 'tool')
    .map((message) => textOf(message.content));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}
