import { AIMessage, type BaseMessage, type MessageContent, ToolMessage } from '@langchain/core/messages';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { type ReleaseSeal, responsesOutput } from './release-seal.js';
import { admitsUserText, carriesNoData, isPlainProse } from '../runtimes/unsealed-text.js';

const SYSTEM_REMEDY =
  'Register the application’s own prompt (ModelInputGuard systemPrompts) or seal it (guard.systemPrompt(text)); release data with contextMessage.';
const TOOL_REMEDY =
  'A tool message must answer, once, a tool call the model made through this guard (the latest model message that issued its id).';
const HISTORY_REMEDY =
  'The guard seals every answer the model gives; history from before the guard passes only with acceptUnsealedHistory: "prose", and only as plain prose.';
const BLANK = /^\p{White_Space}*$/u;

/**
 * Which unsealed model answers (history from before the guard, or from a guard with another key) may reach the
 * model: `'none'` (the default) refuses every one; `'prose'` lets plain prose through (ADR 0013).
 */
export type UnsealedHistory = 'none' | 'prose';

/**
 * Which messages may reach the model (ADR 0011, 0013). A message the guard sealed passes when its seal
 * covers exactly its role, tool call, content and kwargs — and, for a model answer or a tool result, the
 * run's thread. Unsealed, only these pass:
 * - a user message whose content blocks are text, none of them hiding encoded data (TAG characters outside a
 *   flag, runs of variation selectors), and none — nor their concatenation, nor a fenced code block in them —
 *   a JSON object or array once invisible characters are removed;
 * - a system message that is empty (whitespace only), or exactly a prompt the application registered;
 * - with `acceptUnsealedHistory: 'prose'`, an AI message in plain prose: text blocks only, no tool calls, no
 *   hidden encoding, no format character but a joiner, no structured data anywhere in it;
 * and, for every unsealed message, `additional_kwargs` and text blocks' other fields carrying no objects, arrays
 * or text that is not plain, and no `response_metadata.output`. Every message's `name`, sealed or not, must be
 * plain text.
 * A tool message must be sealed and answer, once, a pending call of the latest AI message that issued its id.
 */
export class MessageAdmission {
  constructor(
    private readonly seal: ReleaseSeal,
    private readonly systemPrompts: ReadonlySet<string>,
    private readonly destination: string,
    private readonly unsealedHistory: UnsealedHistory,
  ) {}

  /** @throws UnreleasedContextError for the first message that may not reach the model. */
  assertAdmitted(messages: readonly BaseMessage[], thread: string | undefined): void {
    // Tool-call id → answered. A model message that issues an id again opens a new call under it (providers
    // that number ids per response issue `call_0` every turn).
    const pending = new Map<string, boolean>();
    messages.forEach((message, index) => {
      const what = `Message ${index} (${message.type})`;
      // A message's name is sent with it and no seal covers it (an agent names its answers after the seal): plain text only.
      if (!carriesNoData([message.name])) throw new UnreleasedContextError(what, this.destination, remedyFor(message));
      const sealed = this.seal.verifyMessage(message, thread);
      if (!sealed && !this.admitsUnsealed(message))
        throw new UnreleasedContextError(what, this.destination, remedyFor(message));
      if (AIMessage.isInstance(message))
        for (const call of message.tool_calls ?? []) if (call.id !== undefined) pending.set(call.id, false);
      if (ToolMessage.isInstance(message)) {
        const id = message.tool_call_id;
        if (pending.get(id) !== false) throw new UnreleasedContextError(what, this.destination, TOOL_REMEDY);
        pending.set(id, true);
      }
    });
  }

  private admitsUnsealed(message: BaseMessage): boolean {
    const texts = textBlocks(message.content);
    if (texts === null || !sentBesideCarriesNoData(message)) return false;
    switch (message.type) {
      case 'human':
        return admitsUserText(texts);
      case 'system':
        return BLANK.test(texts.join('')) || this.systemPrompts.has(texts.join(''));
      case 'ai': {
        const ai = message as AIMessage;
        const calls = (ai.tool_calls ?? []).length + (ai.invalid_tool_calls ?? []).length;
        return this.unsealedHistory === 'prose' && calls === 0 && isPlainProse(texts);
      }
      default:
        return false;
    }
  }
}

function remedyFor(message: BaseMessage): string | undefined {
  if (message.type === 'system') return SYSTEM_REMEDY;
  if (message.type === 'ai') return HISTORY_REMEDY;
  return undefined;
}

/**
 * The texts of the content's blocks, or `null` when a block is not text (an image, a file, a tool-use block) or
 * carries data beside its text (a converter sends a block's other fields, such as `annotations`, as they are).
 */
function textBlocks(content: MessageContent): string[] | null {
  if (typeof content === 'string') return [content];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type !== 'text' || typeof block.text !== 'string') return null;
    const { type: _type, text, ...beside } = block as { type: string; text: string } & Record<string, unknown>;
    // An empty list (a provider's `annotations: []`) holds nothing.
    if (!carriesNoData(Object.values(beside).filter((value) => !(Array.isArray(value) && value.length === 0))))
      return null;
    texts.push(text);
  }
  return texts;
}

/**
 * What a provider sends of an unsealed message besides its content holds no data: its `additional_kwargs` (an
 * invalid seal included) no object, array or text that is not plain, and an AI message no
 * `response_metadata.output`, which the Responses API converter sends in place of the content.
 */
function sentBesideCarriesNoData(message: BaseMessage): boolean {
  return carriesNoData(Object.values(message.additional_kwargs ?? {})) && responsesOutput(message) === undefined;
}
