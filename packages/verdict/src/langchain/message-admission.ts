import { AIMessage, type BaseMessage, type MessageContent, ToolMessage } from '@langchain/core/messages';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import type { ReleaseSeal } from './release-seal.js';
import { containsStructure, isJsonDocument, visibleText } from './structured-text.js';

const SYSTEM_REMEDY =
  'Register the application’s own prompt (ModelInputGuard systemPrompts) or seal it (guard.systemPrompt(text)); release data with contextMessage.';
const TOOL_REMEDY = 'A tool message must answer, once, a tool call the model made through this guard.';

/**
 * Which messages may reach the model (ADR 0011, 0013). A message the guard sealed passes when its seal
 * covers exactly its role, tool call, content and kwargs. Unsealed, only these pass:
 * - a user message whose content blocks are text, none of them — nor their concatenation — a JSON object or
 *   array once Unicode format characters are removed;
 * - a system message that is empty, or exactly a prompt the application registered;
 * - an AI message in prose: text blocks only, no tool calls, no structured data anywhere in it;
 * and, for user and AI messages, `additional_kwargs` carrying no objects, arrays or structured text.
 * A tool message must be sealed and answer, once, a tool call of an earlier AI message of the request.
 */
export class MessageAdmission {
  constructor(
    private readonly seal: ReleaseSeal,
    private readonly systemPrompts: ReadonlySet<string>,
    private readonly destination: string,
  ) {}

  /** @throws UnreleasedContextError for the first message that may not reach the model. */
  assertAdmitted(messages: readonly BaseMessage[]): void {
    const calls = new Set<string>();
    const answered = new Set<string>();
    messages.forEach((message, index) => {
      const what = `Message ${index} (${message.type})`;
      const sealed = this.seal.verifyMessage(message);
      if (!sealed && !this.admitsUnsealed(message))
        throw new UnreleasedContextError(what, this.destination, message.type === 'system' ? SYSTEM_REMEDY : undefined);
      if (AIMessage.isInstance(message)) for (const call of message.tool_calls ?? []) if (call.id !== undefined) calls.add(call.id);
      if (ToolMessage.isInstance(message)) {
        const id = message.tool_call_id;
        if (!calls.has(id) || answered.has(id)) throw new UnreleasedContextError(what, this.destination, TOOL_REMEDY);
        answered.add(id);
      }
    });
  }

  private admitsUnsealed(message: BaseMessage): boolean {
    const texts = textBlocks(message.content);
    switch (message.type) {
      case 'human':
        return texts !== null && ![...texts, texts.join('')].some(isJsonDocument) && carriesNoData(message);
      case 'system':
        return texts !== null && (visibleText(texts.join('')).trim() === '' || this.systemPrompts.has(texts.join('')));
      case 'ai': {
        const ai = message as AIMessage;
        const calls = (ai.tool_calls ?? []).length + (ai.invalid_tool_calls ?? []).length;
        return texts !== null && calls === 0 && ![...texts, texts.join('')].some(containsStructure) && carriesNoData(message);
      }
      default:
        return false;
    }
  }
}

/** The texts of the content's blocks, or `null` when a block is not text (an image, a file, a tool-use block). */
function textBlocks(content: MessageContent): string[] | null {
  if (typeof content === 'string') return [content];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type !== 'text' || typeof block.text !== 'string') return null;
    texts.push(block.text);
  }
  return texts;
}

/** `additional_kwargs` hold nothing a provider could send as data: no object, array or structured text (an invalid seal included). */
function carriesNoData(message: BaseMessage): boolean {
  return Object.values(message.additional_kwargs ?? {}).every(
    (value) =>
      value === null ||
      value === undefined ||
      typeof value === 'boolean' ||
      typeof value === 'number' ||
      (typeof value === 'string' && !containsStructure(value)),
  );
}
