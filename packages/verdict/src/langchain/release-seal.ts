import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { ContentSeal } from '../runtimes/content-seal.js';

/** Where a message released for the model carries its seal. */
export const RELEASE_SEAL_KEY = 'verdict_release';

/**
 * Seals messages the guard released: an HMAC-SHA-256 of the destination and the message's
 * {@link sealedView} under a key only the guard holds. A tool, a checkpoint or a copy can carry a seal,
 * but cannot make one for other content, another role, another tool call or another destination. The
 * seal holds no data.
 */
export class ReleaseSeal extends ContentSeal {
  /**
   * The seal of `message` as it is now (any seal it already carries is not covered). A model answer or tool
   * result is bound to `thread` (the run's LangGraph `thread_id`; none outside a thread).
   */
  sealOf(message: BaseMessage, thread?: string): string {
    return this.seal(sealedView(message, thread));
  }

  /** `message` with its seal in `additional_kwargs`. */
  sealMessage<T extends BaseMessage>(message: T, thread?: string): T {
    message.additional_kwargs = { ...message.additional_kwargs, [RELEASE_SEAL_KEY]: this.sealOf(message, thread) };
    return message;
  }

  /** Whether `message` carries a valid seal of this guard for exactly its role, tool call, content and kwargs, and (model answers, tool results) `thread`. */
  verifyMessage(message: BaseMessage, thread?: string): boolean {
    return this.verify(sealedView(message, thread), message.additional_kwargs?.[RELEASE_SEAL_KEY]);
  }
}

/**
 * What a seal covers: the message's role, for a tool message its tool-call id, name and status, the content
 * (every block), for an AI message its tool calls (names, arguments, ids), every `additional_kwargs` entry
 * but the seal itself (`function_call`, raw provider `tool_calls`, …), and for AI and tool messages — made
 * inside a run — the run's thread (`null` outside one). User and system messages are sealed before a run
 * (`contextMessage`, `systemPrompt`), so they are bound to no thread. Where present, it also covers an AI
 * message's `response_metadata.output` (the items the OpenAI Responses API converter sends in place of the
 * content); an answer without it has the view it had before it was covered, so its seal still verifies.
 */
export function sealedView(message: BaseMessage, thread?: string): string {
  const { [RELEASE_SEAL_KEY]: _seal, ...kwargs } = message.additional_kwargs ?? {};
  const tool = ToolMessage.isInstance(message)
    ? [message.tool_call_id, message.name ?? null, message.status ?? null]
    : null;
  const calls = AIMessage.isInstance(message)
    ? [message.tool_calls ?? [], message.invalid_tool_calls ?? []]
        .flat()
        .map(({ name, args, id }) => ({ name, args, id }))
    : [];
  const inRun = message.type === 'ai' || message.type === 'tool';
  const view = [message.type, inRun ? (thread ?? null) : null, tool, message.content, calls, kwargs];
  const output = responsesOutput(message);
  return JSON.stringify(output === undefined ? view : [...view, { output }]);
}

/** An AI message's `response_metadata.output`: what the OpenAI Responses API converter sends in place of its content. */
export function responsesOutput(message: BaseMessage): unknown {
  return AIMessage.isInstance(message) ? message.response_metadata?.output : undefined;
}
