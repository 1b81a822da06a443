import type { LanguageModelMiddleware, ToolExecutionOptions, ToolSet } from 'ai';
import { Trust } from '../context-release/trust.js';
import type { ActionContext } from '../context/action-context.js';
import { APPLICATION_PROMPT, type ContextLabeller } from '../provenance/context-labeller.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import { enclosingToolCallWindow, readResults } from '../provenance/provenance-scope.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';
import type { ProvenanceWindow } from '../provenance/provenance-window.js';
import { extendedWindow } from '../runtimes/extended-window.js';
import {
  type ProviderConversation,
  continuesNothing,
  providerOptionsConversation,
} from '../runtimes/provider-conversation.js';
import type { ProviderConversationWindows } from '../runtimes/provider-conversation-windows.js';
import type { RuntimeCallWindows } from '../runtimes/runtime-call-windows.js';
import { toolCallInput } from '../runtimes/tool-call-input.js';
import { leftBy } from '../runtimes/window-labellers.js';
import { type AiSdkMessage, type AiSdkPrompt, fileText, partsText, toolResultText, userText } from './ai-sdk-prompt.js';
import { SEAL_NAMESPACE } from './ai-sdk-model-input-guard.js';

type GenerateOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0];
type GenerateResult = Awaited<ReturnType<GenerateOptions['doGenerate']>>;
type StreamPart =
  Awaited<ReturnType<GenerateOptions['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type CallParams = GenerateOptions['params'];
/** A part of an assistant message in a prompt. */
type AssistantPart = Extract<AiSdkMessage, { role: 'assistant' }>['content'][number];
/** A tool result the provider returned for a tool it ran itself, in a response. */
type ProviderResult = Extract<GenerateResult['content'][number], { type: 'tool-result' }>;
/** A part of a response or an assistant message that shows the model content besides text: a file, a custom part. */
type ShownPart =
  { readonly type: 'file'; readonly data: unknown; readonly filename?: string } | { readonly type: 'custom' };

/**
 * Labels everything that enters an AI SDK model call's prompt and hands every tool call the model proposes the
 * window it was proposed in (docs/runtimes/ai-sdk.md, ADR 0106): a language-model middleware for
 * `wrapLanguageModel({ model, middleware: [tracker.middleware(), guard.middleware()] })`, for `generateText` and
 * `streamText` alike. Labels are those of the LangChain tracker (docs/provenance.md §1), from the same shared
 * rules:
 * - the system messages a new conversation begins with (the `instructions`, or `system`) are the application's,
 *   trusted, and keep that label by their text in its later steps and turns in this process; any other system message
 *   the module never labelled (one inside restored history, or beginning a conversation under way that this process
 *   did not see begin) is `unobserved:history`, untrusted, as under LangChain; the user messages at the end of the
 *   prompt (after the last assistant or tool message) are this turn's input, the principal's, trusted; any other user
 *   message the module never labelled (history from another process) is untrusted; a user message that carries the
 *   model-input guard's seal is a released `contextMessage`, never the principal's: labelled by the release its seal
 *   vouches for (which the guard, inside the tracker, reads before the tracker labels the window, ADR 0210), else
 *   untrusted;
 * - a bound tool's result carries its capability's declared `provenance.results` (the bound tool labels it as it
 *   answers a call this tracker saw, with this tracker's options: a tool named in `tools` is that source's, ADR 0083);
 *   any other tool's result is untrusted, `tool:<name>` or its source in `tools`;
 * - a tool the provider ran itself (`providerExecuted`: a web search, a code run) returned an untrusted result of that
 *   tool, in the response that ran it (the model's later calls there read it) and in the assistant message the SDK
 *   keeps it in; a file or custom part of an answer is the model's, untrusted unless the module labelled its text;
 * - a model answer is derived from its whole prompt: untrusted when anything in it was.
 * Bound tools made by `VerdictAiSdkTools` find the window of their call; a call no tracker saw is unobserved.
 *
 * A response the provider keeps (a provider option `previousResponseId`, such as
 * `providerOptions.openai.previousResponseId`: the prompt then holds only the new messages) is read whole (ADR 0151):
 * the tracker keeps what each call read and answered under its response's id, and a call that continues it reads it
 * before its prompt; one that continues a response this process did not keep for the principal is unobserved. A
 * conversation the provider stores (`conversation`, `conversationId`) is unobserved: other requests, in this process
 * or another, add to it unseen.
 *
 * @example
 * const model = wrapLanguageModel({ model: provider('gpt-4.1'), middleware: [trackers.forAgent().middleware()] });
 * await contexts.run(requester, () => generateText({ model, tools, messages, stopWhen: stepCountIs(5) }));
 */
export class AiSdkProvenanceTracker {
  constructor(
    private readonly labeller: ContextLabeller,
    private readonly windows: RuntimeCallWindows,
    private readonly conversations: ProviderConversationWindows,
  ) {}

  /**
   * Labels content the application puts into the prompt itself (a retrieved document, a memory): wherever
   * exactly this text enters a tracked window, it carries this label.
   *
   * @example await tracker.label(document, ProvenanceSource.retrieval('help-center'), Trust.Untrusted);
   */
  async label(text: string, source: ProvenanceSource, trust: Trust): Promise<void> {
    await this.labeller.label(text, source, trust);
  }

  /**
   * `tools`, each run in the window the tracker saw its call proposed in, for that call only: an agent an
   * application's tool starts (a sub-agent with a tracked model of its own) reads its input — which this agent's
   * model wrote — as trusted as that window, unobserved (untrusted) when the tracker did not see the call, and an
   * untracked agent's bound calls inside it are unobserved; what it answers from untrusted content makes the tool's
   * result untrusted, even for a tool named in `trustedTools`. Bound tools of `VerdictAiSdkTools` do this themselves.
   * A streaming tool (an `async function*` execute) is left as it is: an agent it starts is not seen.
   *
   * @example await generateText({ model, tools: tracker.tools({ delegate, lookup }), messages });
   */
  tools<T extends ToolSet>(tools: T): T {
    const wrapped = Object.entries(tools).map(([name, tool]) => {
      const execute = tool.execute;
      // A streaming tool (an async generator) yields outside any call: it is left as it is.
      if (execute === undefined || isAsyncGenerator(execute)) return [name, tool];
      const tracked = (input: unknown, options: ToolExecutionOptions<never>) =>
        this.windows.within({ id: options.toolCallId, input }, async () => execute(input, options));
      // Every property of the tool kept as it is (some are not enumerable), but its `execute`.
      return [
        name,
        Object.create(Object.getPrototypeOf(tool) as object | null, {
          ...Object.getOwnPropertyDescriptors(tool),
          execute: { value: tracked, enumerable: true, writable: true, configurable: true },
        }) as typeof tool,
      ];
    });
    return Object.fromEntries(wrapped) as T;
  }

  /** The language-model middleware. */
  middleware(): LanguageModelMiddleware {
    return {
      specificationVersion: 'v4',
      wrapGenerate: async ({ doGenerate, params }) => {
        const context = this.windows.current();
        const conversation = providerOptionsConversation(params.providerOptions);
        // The window is labelled once the call is under way: the model-input guard inside it has read the labels its
        // seals vouch for (released context, ADR 0210).
        const result = await doGenerate();
        const window = await this.windowOf(params, conversation, context);
        const held = await this.answered(result.content, window, context);
        this.conversations.keep(result.response?.id, held, context);
        return result;
      },
      wrapStream: async ({ doStream, params }) => {
        const context = this.windows.current();
        const conversation = providerOptionsConversation(params.providerOptions);
        const { stream, ...rest } = await doStream();
        // As for a generation: labelled after the guard inside read its seals, before any part of the answer is read.
        let seen = await this.windowOf(params, conversation, context);
        // Each text of the answer by its id, in order: the prompt holds each as a part of its own (`partsText`).
        const texts = new Map<string, string>();
        const shown: ShownPart[] = [];
        let responseId: string | undefined;
        const tracked = stream.pipeThrough(
          new TransformStream<StreamPart, StreamPart>({
            transform: async (part, controller) => {
              // Remembered before the part goes on: the SDK runs the tool once it reads the call. A result of a tool
              // the provider ran is in the model's context from here on.
              if (part.type === 'tool-call') this.proposed(part, seen, context);
              else if (part.type === 'tool-result') seen = extendedWindow(seen, await this.providerResult(part));
              // A text never written is a part of the answer all the same when it carries provider metadata (the SDK
              // keeps it in the response's message).
              else if ((part.type === 'text-start' || part.type === 'text-end') && part.providerMetadata !== undefined)
                texts.set(part.id, texts.get(part.id) ?? '');
              else if (part.type === 'text-delta') texts.set(part.id, (texts.get(part.id) ?? '') + part.delta);
              else if (part.type === 'file' || part.type === 'custom') shown.push(part);
              else if (part.type === 'response-metadata') responseId = part.id ?? responseId;
              controller.enqueue(part);
            },
            flush: async () => {
              const answer = await this.labeller.labelAnswer([...texts.values()].join('\n'), seen);
              const held = extendedWindow(seen, [
                ...(answer === undefined ? [] : [answer]),
                ...(await this.shownItems(shown)),
              ]);
              this.conversations.keep(responseId, held, context);
            },
          }),
        );
        return { ...rest, stream: tracked };
      },
    };
  }

  /**
   * The window of one model call: what the provider holds of the conversation it continues, then every message of its
   * prompt, labelled (the call's tools are the application's).
   */
  private async windowOf(
    params: CallParams,
    conversation: ProviderConversation,
    context: ActionContext | undefined,
  ): Promise<ProvenanceWindow> {
    const prompt = params.prompt as AiSdkPrompt;
    const tools: readonly { readonly name: string }[] = params.tools ?? [];
    this.labeller.offer(tools.map(({ name }) => name));
    const lastAnswer = prompt.findLastIndex(({ role }) => role === 'assistant' || role === 'tool');
    // A new conversation (no answer nor result in the prompt, nothing kept on the provider's side): the system
    // messages it begins with are the application's — its `instructions`. Any other system message is history
    // (`itemsOf`): the application's only when the module labelled its text (this conversation's beginning, a label
    // given at boot).
    if (lastAnswer === -1 && continuesNothing(conversation))
      for (const message of prompt) {
        if (message.role !== 'system') break;
        if (message.content !== '') await this.labeller.label(message.content, APPLICATION_PROMPT, Trust.Trusted);
      }
    const caller = enclosingToolCallWindow();
    for (const message of prompt.slice(lastAnswer + 1))
      if (message.role === 'user' && !carriesSeal(message))
        await this.labeller.labelInput(userText(message.content), caller);
    const items: LabelledContent[] = [];
    for (const message of prompt) items.push(...(await this.itemsOf(message)));
    // The results this call reads are read: a sub-agent's generation that goes on past its tool step hands its caller
    // nothing unread (ADR 0211).
    readResults(
      prompt.flatMap((message) =>
        message.role === 'tool'
          ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))
          : [],
      ),
    );
    return extendedWindow(this.conversations.held(conversation, context), items);
  }

  private async itemsOf(message: AiSdkMessage): Promise<readonly LabelledContent[]> {
    if (message.role === 'system') return this.labeller.historyItems(message.content);
    if (message.role === 'user') return this.labeller.itemsOf('user', userText(message.content));
    if (message.role === 'assistant') {
      const items = [...(await this.labeller.itemsOf('assistant', partsText(message.content)))];
      for (const part of message.content) items.push(...(await this.assistantPartItems(part)));
      return items;
    }
    const items: LabelledContent[] = [];
    for (const part of message.content) {
      // A human's denial of an approval is the application's answer, not the tool's: it holds nothing to label.
      if (part.type !== 'tool-result' || part.output.type === 'execution-denied') continue;
      const text = toolResultText(part.output);
      // Found by its call: a bound tool's labels, or what the agents that ran inside the call answered.
      const bound = this.windows.resultOf(part.toolCallId, text);
      items.push(
        ...(await this.labeller.toolResultOf(text, part.toolName, bound, this.windows.carriedOf(part.toolCallId))),
      );
    }
    return items;
  }

  /** What a part of an assistant message puts into the window besides its text (read with the message's other text). */
  private async assistantPartItems(part: AssistantPart): Promise<readonly LabelledContent[]> {
    switch (part.type) {
      case 'tool-call':
        // A call the model proposed earlier carries what its window made untrusted (ADR 0128).
        return this.labeller.proposedCall(
          part.input,
          this.windows.windowOf({ id: part.toolCallId, input: part.input }),
        );
      case 'tool-result':
        // The result of a tool the provider ran itself, which the SDK keeps in the assistant message.
        if (part.output.type === 'execution-denied') return [];
        return this.labeller.toolResultOf(toolResultText(part.output), part.toolName, undefined);
      case 'file':
      case 'custom':
        return this.shownItems([part]);
      default:
        // Text, read above; reasoning, the model's own words.
        return [];
    }
  }

  /**
   * The model answered: its tool calls keep the window — with the results of the tools the provider ran in the same
   * response, which the model read before them — and its text is labelled as derived from it. Answers what the model
   * read and answered, as the provider keeps it.
   */
  private async answered(
    content: GenerateResult['content'],
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): Promise<ProvenanceWindow> {
    const results: LabelledContent[] = [];
    for (const part of content) if (part.type === 'tool-result') results.push(...(await this.providerResult(part)));
    const seen = extendedWindow(window, results);
    const texts: string[] = [];
    const shown: ShownPart[] = [];
    for (const part of content) {
      if (part.type === 'tool-call') this.proposed(part, seen, context);
      else if (part.type === 'text') texts.push(part.text);
      else if (part.type === 'file' || part.type === 'custom') shown.push(part);
    }
    const answer = await this.labeller.labelAnswer(texts.join('\n'), seen);
    return extendedWindow(seen, [...(answer === undefined ? [] : [answer]), ...(await this.shownItems(shown))]);
  }

  /** A result the provider returned for a tool it ran itself: that tool's, untrusted unless it is named in `trustedTools`. */
  private async providerResult(part: ProviderResult): Promise<readonly LabelledContent[]> {
    const text = typeof part.result === 'string' ? part.result : JSON.stringify(part.result);
    return this.labeller.toolResultOf(text, part.toolName, undefined);
  }

  /**
   * What files and custom parts show the model: a file's inline text, URL or name, a custom part's whole JSON (a
   * provider's own item: a compaction of earlier context, say), each the model's answer unless the module labelled
   * the text — nobody did, so untrusted. A file given by its bytes alone shows no text.
   */
  private async shownItems(parts: readonly ShownPart[]): Promise<readonly LabelledContent[]> {
    const items: LabelledContent[] = [];
    for (const part of parts)
      items.push(
        ...(await this.labeller.itemsOf('assistant', part.type === 'file' ? fileText(part) : JSON.stringify(part))),
      );
    return items;
  }

  private proposed(
    call: { toolCallId: string; toolName: string; input: string; providerExecuted?: boolean },
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): void {
    leftBy(window, this.labeller);
    this.windows.remember({ id: call.toolCallId, input: toolCallInput(call.input) }, window, context);
    // Its result, made outside the tracker, is unread until a later model call reads it (ADR 0211). A tool the
    // provider ran returned its result in this very response, which the model read before it answered.
    if (call.providerExecuted !== true) this.labeller.proposedTool(call.toolCallId, call.toolName);
  }
}

/**
 * Whether a user message carries a Verdict seal (on the message or a part): released context, never the principal's
 * input, whether or not its label can be read (ADR 0210).
 */
function carriesSeal(message: Extract<AiSdkMessage, { role: 'user' }>): boolean {
  const sealed = (options: unknown) => typeof options === 'object' && options !== null && SEAL_NAMESPACE in options;
  return sealed(message.providerOptions) || message.content.some((part) => sealed(part.providerOptions));
}

/** Whether `fn` is an `async function*`, whose calls return a stream rather than a promise. */
function isAsyncGenerator(fn: unknown): boolean {
  return (
    typeof fn === 'function' &&
    (fn as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === 'AsyncGeneratorFunction'
  );
}
