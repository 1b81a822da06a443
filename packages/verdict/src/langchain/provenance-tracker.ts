import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  coerceMessageLikeToMessage,
} from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { Trust } from '../context-release/trust.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import {
  enclosingToolCallWindow,
  leaveUnread,
  readResults,
  withToolCallProvenance,
} from '../provenance/provenance-scope.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import {
  APPLICATION_PROMPT,
  ContextLabeller,
  type ProvenanceTrackerOptions,
  type WindowRole,
} from '../provenance/context-labeller.js';
import type { ProvenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import {
  type CallWindowKey,
  argumentsFingerprint,
  conversationThread,
  fingerprintedCallWindowKey,
} from '../provenance/call-window-key.js';
import { VerdictTool } from './verdict-tool.js';
import { threadOf } from './thread-of.js';
import { LabelledRetriever } from './labelled-retriever.js';
import type { BaseRetrieverInterface } from '@langchain/core/retrievers';
import { RELEASE_SEAL_KEY } from './release-seal.js';
import { toolCallOf } from './tool-call-of.js';
import { textOf } from './message-text.js';
import { isOwnLabelledTool, ownResultItems, withOwnResultLabels } from './own-labelled-tool.js';
import { onRelease, releasedFrom } from './model-input-guard-release.js';
import { labelRelease } from '../provenance/label-result.js';

export type { ProvenanceTrackerOptions, ProvenanceTrackerWiring };

/**
 * Labels everything that enters an agent's context, without the application threading labels by hand
 * (docs/provenance.md): a langchain v1 agent middleware, placed before the model-input guard (after it with
 * quarantined reading, docs/context-release.md §6).
 * - The system prompt is the application's, trusted; the human messages of the current turn's input are the
 *   principal's (`user:principal`, trusted); a released `contextMessage` carries its label in the guard's seal;
 *   any other human message the module never labelled (history from another process) is untrusted (ADR 0041).
 * - Each tool call's window is that call's only: a sub-agent started inside it has its own window (its input as
 *   trusted as the caller's window), or none (its bound calls are unobserved); an untrusted answer of a sub-agent
 *   makes the carrying tool's result untrusted, whatever the tool declares (ADR 0040).
 * - A bound tool's result carries its capability's declared `provenance.results`, whole or per path;
 *   any other tool's result (MCP, retrievers, plain tools) is untrusted. A model-input guard's release of a result
 *   carries the labels of what the tool returned, and the released text as a whole is untrusted when any of it was.
 * - A model answer is derived from its whole window: untrusted when anything in it was. Its label follows its
 *   text into another agent's window (trackers of one module share what they saw).
 * - Every tool call runs with the window the model proposed it in, which the provenance stage (step 1a)
 *   analyses. Labels and derivation edges go to the module's provenance ledger.
 *
 * @example
 * const tracker = trackers.forAgent({ tools: { read_file: ProvenanceSource.mcp('files') } });
 * const agent = createAgent({ model, tools, middleware: [tracker.middleware(), guard.middleware()] });
 */
export class ProvenanceTracker {
  private readonly labeller: ContextLabeller;
  private readonly byMessage = new WeakMap<BaseMessage, readonly LabelledContent[]>();
  /** The window each answer was proposed in, and its calls: `[id, fingerprint of plain JSON arguments]`, as JSON. */
  private readonly windowsByAnswer = new WeakMap<
    BaseMessage,
    { readonly window: ProvenanceWindow; readonly calls: ReadonlySet<string> }
  >();

  constructor(wiring: ProvenanceTrackerWiring, options: ProvenanceTrackerOptions = {}) {
    this.labeller = new ContextLabeller(wiring, options);
  }

  /**
   * Labels content the application puts into an agent's input itself (a retrieved document, a memory, another
   * system's text): wherever exactly this text enters a tracked window, it carries this label.
   *
   * @example await tracker.label(document.pageContent, ProvenanceSource.retrieval('help-center'), Trust.Untrusted);
   */
  async label(text: string, source: ProvenanceSource, trust: Trust): Promise<void> {
    await this.labeller.label(text, source, trust);
  }

  /**
   * Wraps a retriever so that its documents are labelled untrusted, `retrieval:<index>`, as they are retrieved.
   * @example const retriever = tracker.retriever(vectorStore.asRetriever(), 'help-center');
   */
  retriever(inner: BaseRetrieverInterface, index: string): LabelledRetriever {
    return new LabelledRetriever(inner, this, ProvenanceSource.retrieval(index));
  }

  /** The agent middleware. */
  middleware() {
    return createMiddleware({
      name: 'VerdictProvenanceTracker',
      beforeAgent: async (state) => {
        await this.labelInput((state as { messages?: unknown }).messages);
        return undefined;
      },
      wrapModelCall: async (request, handler) => {
        // Before the call: a malformed conversation id stops the run before the model is paid for.
        const thread = this.windowThread(request.runtime);
        this.labeller.offer(request.tools.map((offered) => (offered as { name?: unknown }).name));
        const response = await handler(request);
        // Labelled after the call: the model-input guard, inside it, has read the labels its seals vouch for.
        const messages = [request.systemMessage, ...request.messages];
        const items: LabelledContent[] = [];
        for (const [index, message] of messages.entries()) {
          items.push(...(await this.itemsOf(message, index === 0, thread)));
          if (AIMessage.isInstance(message)) items.push(...(await this.proposedBy(message, thread)));
        }
        const window = ProvenanceWindow.of(items);
        // The results this call read are read: a sub-agent's run that goes on past its tool step hands its caller
        // nothing unread (ADR 0211).
        readResults(
          request.messages.flatMap((message) => (ToolMessage.isInstance(message) ? [message.tool_call_id] : [])),
        );
        const answer = answerOf(response);
        if (answer !== undefined) await this.answered(answer, window, thread);
        return response;
      },
      wrapToolCall: async (request, handler) => {
        const id = request.toolCall.id ?? '';
        if (request.tool !== undefined) this.labeller.offer([request.toolCall.name]);
        const args = argumentsFingerprint(request.toolCall.args);
        const window =
          this.windowOfCall(request.state as { messages?: unknown }, id, args) ??
          this.rememberedWindow(this.windowThread(request.runtime), id, args) ??
          ProvenanceWindow.unobserved();
        const call = toolCallOf((request.runtime as { configurable?: unknown } | undefined)?.configurable, id);
        const {
          result: { result, own },
          carried,
        } = await withToolCallProvenance(window, call, () => withOwnResultLabels(async () => handler(request)));
        if (ToolMessage.isInstance(result))
          await this.toolAnswered(result, request.tool, request.toolCall.name, carried, own, () =>
            this.windowThread(request.runtime),
          );
        else await this.commandAnswered(result, request.toolCall.name);
        return result;
      },
    });
  }

  /**
   * The principal's input of this turn: the human messages at the end of the state when the agent starts (ADR
   * 0041). What comes before them is history — restored by a checkpointer, or passed in by the application —
   * and keeps the labels the module remembers, or none (then it is untrusted). A message carrying a seal is
   * released context, labelled by its seal; a text the module already labelled keeps its labels.
   */
  private async labelInput(messages: unknown): Promise<void> {
    const list = Array.isArray(messages) ? (messages as BaseMessage[]) : [];
    // A new conversation (nothing but its input in the state): the system messages it begins with are the
    // application's. In a conversation already under way they may be a tool Command's, and stay unlabelled.
    const input = (message: BaseMessage) =>
      (SystemMessage.isInstance(message) || HumanMessage.isInstance(message)) && toolOutputOf(message) === undefined;
    if (list.every(input))
      for (const message of list) {
        if (!SystemMessage.isInstance(message)) break;
        await this.labeller.label(textOf(message), APPLICATION_PROMPT, Trust.Trusted);
      }
    const caller = enclosingToolCallWindow();
    for (let i = list.length - 1; i >= 0 && HumanMessage.isInstance(list[i]); i--) {
      const message = list[i]!;
      if (toolOutputOf(message) !== undefined) break;
      if (message.additional_kwargs?.[RELEASE_SEAL_KEY] !== undefined) continue;
      await this.labeller.labelInput(textOf(message), caller);
    }
  }

  /** The model answered: its tool calls keep the window, its text is labelled as derived from it. */
  private async answered(answer: AIMessage, window: ProvenanceWindow, thread: string | undefined): Promise<void> {
    const calls = new Set<string>();
    for (const call of proposalsOf(answer)) {
      const args = argumentsFingerprint(call.args);
      if (args !== undefined) calls.add(JSON.stringify([call.id, args]));
      const key = this.windowKey(thread, call.id, args);
      if (key !== undefined) this.labeller.wiring.labels.rememberWindow(key.thread, key.call, window);
    }
    this.windowsByAnswer.set(answer, { window, calls });
    const item = await this.labeller.labelAnswer(textOf(answer), window);
    if (item === undefined) return;
    this.byMessage.set(answer, [item]);
  }

  /**
   * A tool answered: labelled by the shared rules ({@link ContextLabeller.labelToolResult}). `thread` is where the
   * run's calls are kept (see {@link windowThread}). The release of a model-input guard is labelled by what the tool
   * returned ({@link labelRelease}): here for a guard inside the tracker, as the guard makes it for one outside
   * ({@link onRelease}); a guard's release the tracker cannot trace back to it (a middleware between them copied it)
   * as the result of a tool bound to nothing.
   */
  private async toolAnswered(
    result: ToolMessage,
    tool: unknown,
    name: string,
    carried: readonly LabelledContent[],
    own: Parameters<typeof ownResultItems>[0],
    thread: () => string | undefined,
  ): Promise<void> {
    const from = releasedFrom(result);
    const shown = textOf(result);
    const returned = from === undefined ? shown : textOf(from);
    const capability = from !== undefined && tool instanceof VerdictTool ? tool.capability : undefined;
    const ownLabelled = from !== undefined && isOwnLabelledTool(tool);
    // Verdict's own tool handed this call's labels (an extraction's items, with its passages): those, not the
    // module's labels of the same text, which another principal's identical result shares.
    const ownItems = ownLabelled && carried.length === 0 ? ownResultItems(own, returned) : undefined;
    const items = await this.releaseItems(
      shown,
      returned,
      ownItems ?? (await this.labeller.labelToolResult(returned, name, { capability, ownLabelled }, carried)),
    );
    if (ownItems !== undefined) this.rememberResult(thread(), result, items);
    this.byMessage.set(result, items);
    // Inside a delegating tool call, unread until a later model call of the run reads it: a run that ends on it (a
    // `returnDirect` tool) hands its caller what no observed model read, carrying its untrusted labels (ADR 0211).
    leaveUnread(result.tool_call_id, items);
    // A guard listed before the tracker releases this result next: its release is labelled as it is made, and
    // remembered by its text, which the run finds again if it pauses and the release comes back from the checkpoint.
    if (from === result)
      onRelease(result, async (released) => {
        this.byMessage.set(released, await this.releaseItems(textOf(released), shown, items));
      });
  }

  /**
   * The items of `shown`, what a model-input guard released of a result `returned` whose items are `items`: those,
   * when the guard released the text as it was, else {@link labelRelease}'s — remembered by the released text too,
   * which a later turn of the conversation and another agent meet.
   */
  private async releaseItems(
    shown: string,
    returned: string,
    items: readonly LabelledContent[],
  ): Promise<readonly LabelledContent[]> {
    if (shown === returned) return items;
    // With the labels already known for the same text, as a tool result's are (`labelToolResult`).
    return this.labeller.remember(shown, labelRelease(shown, items));
  }

  /**
   * Keeps the items Verdict's own tool gave its result for a later turn of the conversation, whose messages come
   * back from the checkpoint as other objects: in the module's memory (bounded), under the principal, the thread and
   * the call id, with the fingerprint of the result's text. Nothing is kept without a thread or a principal.
   */
  private rememberResult(thread: string | undefined, result: ToolMessage, items: readonly LabelledContent[]): void {
    const key = this.windowKey(thread, result.tool_call_id, NO_ARGUMENTS);
    if (key !== undefined) this.labeller.wiring.labels.rememberResult(key.thread, key.call, textOf(result), items);
  }

  /** The items kept for `message` by {@link rememberResult}: a tool message of this principal's thread, same text. */
  private rememberedResult(thread: string | undefined, message: BaseMessage): readonly LabelledContent[] | undefined {
    if (!ToolMessage.isInstance(message)) return undefined;
    const key = this.windowKey(thread, message.tool_call_id, NO_ARGUMENTS);
    return key === undefined ? undefined : this.labeller.wiring.labels.result(key.thread, key.call, textOf(message));
  }

  /**
   * A tool returned a Command: whatever messages it puts in the state — a human or system message included, or a
   * plain object or string LangGraph makes one of — are the tool's output, hence untrusted. Each is made a message
   * here and marked as the tool's in itself, and the Command carries the marked messages: so it stays the tool's in
   * any process the checkpoint is read in. `update` is an object or a list of `[key, value]` pairs.
   */
  private async commandAnswered(result: unknown, name: string): Promise<void> {
    const command = result as { update?: unknown } | null | undefined;
    const update = command?.update;
    if (typeof update !== 'object' || update === null) return;
    if (!Array.isArray(update)) {
      const { messages } = update as { messages?: unknown };
      if (messages !== undefined) command!.update = { ...update, messages: await this.toolOutput(messages, name) };
      return;
    }
    const entries: unknown[] = [];
    for (const entry of update)
      entries.push(
        Array.isArray(entry) && entry[0] === 'messages' ? ['messages', await this.toolOutput(entry[1], name)] : entry,
      );
    command!.update = entries;
  }

  /** The messages a Command puts in the state (one or a list), as messages labelled and marked as `name`'s output. */
  private async toolOutput(value: unknown, name: string): Promise<BaseMessage[]> {
    const messages = (Array.isArray(value) ? value : [value]).map((message) => coerceMessageLikeToMessage(message));
    for (const message of messages) {
      await this.labeller.labelToolOutput(textOf(message), name);
      message.additional_kwargs = { ...message.additional_kwargs, [TOOL_OUTPUT_KEY]: name };
    }
    return messages;
  }

  /**
   * The window the call was proposed in, found by the very answer that proposed it: unobserved when that answer
   * proposed other arguments (`args`, their fingerprint) under the call's id, as when a middleware around the tracker
   * changed them. `undefined` when no answer the module remembers proposed it.
   */
  private windowOfCall(
    state: { messages?: unknown },
    id: string,
    args: string | undefined,
  ): ProvenanceWindow | undefined {
    const messages = Array.isArray(state?.messages) ? (state.messages as BaseMessage[]) : [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (!AIMessage.isInstance(message) || !(message.tool_calls ?? []).some((call) => call.id === id)) continue;
      const proposal = this.windowsByAnswer.get(message);
      if (proposal === undefined) return undefined;
      return proposal.calls.has(JSON.stringify([id, args])) ? proposal.window : ProvenanceWindow.unobserved();
    }
    return undefined;
  }

  /**
   * What the calls of an earlier answer in the window carry (ADR 0128): the values their windows made untrusted.
   * An answer's window is found by the answer itself, else where the window of each of its calls is kept.
   */
  private async proposedBy(answer: AIMessage, thread: string | undefined): Promise<readonly LabelledContent[]> {
    const window = this.windowsByAnswer.get(answer)?.window;
    const items: LabelledContent[] = [];
    for (const call of proposalsOf(answer))
      items.push(
        ...(await this.labeller.proposedCall(
          call.args,
          window ?? this.rememberedWindow(thread, call.id, argumentsFingerprint(call.args)),
        )),
      );
    return items;
  }

  /**
   * Where the windows of a run's calls are kept: its LangGraph thread, else the action context's conversation
   * (`metadata.conversationId`). `undefined` when it has neither (its calls' windows are found by their answers).
   */
  private windowThread(runtime: Parameters<typeof threadOf>[0]): string | undefined {
    const thread = threadOf(runtime);
    if (thread !== undefined) return JSON.stringify(['thread', thread]);
    const context = this.labeller.wiring.context();
    return context === undefined ? undefined : conversationThread(context);
  }

  /** The window kept for a call (ADR 0106), if any; `args` is the fingerprint of its arguments. */
  private rememberedWindow(
    thread: string | undefined,
    id: string,
    args: string | undefined,
  ): ProvenanceWindow | undefined {
    const key = this.windowKey(thread, id, args);
    return key === undefined ? undefined : this.labeller.wiring.labels.window(key.thread, key.call);
  }

  /**
   * Where a call's window is kept for a run resumed from its checkpoint or a later turn of its conversation: the
   * current principal, the thread (see {@link windowThread}), the call id and the fingerprint of its arguments
   * (`args`, ADR 0106). `undefined` without a thread or outside any action context.
   */
  private windowKey(thread: string | undefined, id: string, args: string | undefined): CallWindowKey | undefined {
    const context = this.labeller.wiring.context();
    if (thread === undefined || context === undefined) return undefined;
    return fingerprintedCallWindowKey(this.labeller.wiring.principal(context), thread, id, args);
  }

  /**
   * The labelled items of one message of the window. A system message the module has no labels for is the
   * application's only as the agent's own system prompt (`prompt`); in the state it is history nobody labelled,
   * which a tool's Command may have put there (see {@link labelInput} for a new conversation's). A tool message
   * restored from the checkpoint finds the items its call kept in `thread` ({@link rememberResult}).
   */
  private async itemsOf(
    message: BaseMessage,
    prompt: boolean,
    thread: string | undefined,
  ): Promise<readonly LabelledContent[]> {
    const known = this.byMessage.get(message) ?? this.rememberedResult(thread, message);
    if (known !== undefined) return known;
    // A model-input guard listed before the tracker released a message the tracker did not answer the call with (a
    // middleware between them made it: quarantined reading's handle), after the tracker labelled the tool's own.
    const from = ToolMessage.isInstance(message) ? releasedFrom(message) : undefined;
    if (from !== undefined && from !== message) {
      const items = await this.releaseItems(textOf(message), textOf(from), await this.itemsOf(from, false, thread));
      this.byMessage.set(message, items);
      return items;
    }
    const output = toolOutputOf(message);
    const role = output === undefined ? roleOf(message) : 'tool';
    if (role === 'system' && !prompt) {
      const history = this.labeller.historyItems(textOf(message));
      if (history.length > 0) this.byMessage.set(message, history);
      return history;
    }
    const items = await this.labeller.itemsOf(
      role,
      textOf(message),
      output ?? (ToolMessage.isInstance(message) ? (message.name ?? 'unknown') : undefined),
    );
    if (items.length > 0) this.byMessage.set(message, items);
    return items;
  }
}

/**
 * The model's answer in what a model call returned: the message itself, or, with structured output, the model's
 * message among those the agent adds with the parsed response (a tool strategy's answer is a tool call, no text).
 */
function answerOf(response: unknown): AIMessage | undefined {
  if (AIMessage.isInstance(response)) return response;
  const messages = (response as { structuredResponse?: unknown; messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? messages.find((message) => AIMessage.isInstance(message)) : undefined;
}

/** A message's role in the window; any message that is not system, human or tool counts as a model answer. */
function roleOf(message: BaseMessage): WindowRole {
  if (SystemMessage.isInstance(message)) return 'system';
  if (HumanMessage.isInstance(message)) return 'user';
  if (ToolMessage.isInstance(message)) return 'tool';
  return 'assistant';
}

/**
 * The calls an answer proposed: its tool calls, and the calls the model wrote that did not parse (their raw
 * arguments, as the model wrote them).
 */
function proposalsOf(answer: AIMessage): readonly { readonly id: string; readonly args: unknown }[] {
  return [
    ...(answer.tool_calls ?? []).map((call) => ({ id: call.id ?? '', args: call.args })),
    ...(answer.invalid_tool_calls ?? []).map((call) => ({ id: call.id ?? '', args: call.args ?? '' })),
  ];
}

/** A tool result's window key holds no arguments: it is the fingerprint of `null`. */
const NO_ARGUMENTS = argumentsFingerprint(null);

/** Where a tool's Command put a message into the state, the tool's name is kept in it under this key. */
const TOOL_OUTPUT_KEY = 'verdict_tool_output';

/** The name of the tool whose Command put `message` into the state, if one did. */
function toolOutputOf(message: BaseMessage): string | undefined {
  const name = message.additional_kwargs?.[TOOL_OUTPUT_KEY];
  return typeof name === 'string' ? name : undefined;
}
