import type { LanguageModelMiddleware, ToolExecutionOptions, ToolSet } from 'ai';
import type { Trust } from '../context-release/trust.js';
import type { ActionContext } from '../context/action-context.js';
import type { ContextLabeller } from '../provenance/context-labeller.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import { enclosingToolCallWindow } from '../provenance/provenance-scope.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { RuntimeCallWindows } from '../runtimes/runtime-call-windows.js';
import { toolCallInput } from '../runtimes/tool-call-input.js';
import { type AiSdkMessage, type AiSdkPrompt, partsText, toolResultText } from './ai-sdk-prompt.js';

type GenerateOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0];
type GenerateResult = Awaited<ReturnType<GenerateOptions['doGenerate']>>;
type StreamPart =
  Awaited<ReturnType<GenerateOptions['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

/**
 * Labels everything that enters an AI SDK model call's prompt and hands every tool call the model proposes the
 * window it was proposed in (docs/runtimes/ai-sdk.md, ADR 0106): a language-model middleware for
 * `wrapLanguageModel({ model, middleware: [tracker.middleware(), guard.middleware()] })`, for `generateText` and
 * `streamText` alike. Labels are those of the LangChain tracker (docs/provenance.md §1), from the same shared
 * rules:
 * - the system prompt is the application's, trusted; the user messages at the end of the prompt (after the last
 *   assistant or tool message) are this turn's input, the principal's, trusted; any other user message the
 *   module never labelled (history from another process) is untrusted;
 * - a bound tool's result carries its capability's declared `provenance.results` (the bound tool labels it as it
 *   answers a call this tracker saw); any other tool's result is untrusted, `tool:<name>` or its source in `tools`;
 * - a model answer is derived from its whole prompt: untrusted when anything in it was.
 * Bound tools made by `VerdictAiSdkTools` find the window of their call; a call no tracker saw is unobserved.
 *
 * @example
 * const model = wrapLanguageModel({ model: provider('gpt-4.1'), middleware: [trackers.forAgent().middleware()] });
 * await contexts.run(requester, () => generateText({ model, tools, messages, stopWhen: stepCountIs(5) }));
 */
export class AiSdkProvenanceTracker {
  constructor(
    private readonly labeller: ContextLabeller,
    private readonly windows: RuntimeCallWindows,
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
   * untracked agent's bound calls inside it are unobserved. Bound tools of `VerdictAiSdkTools` do this themselves.
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
        const window = await this.windowOf(params.prompt as AiSdkPrompt, params.tools);
        const result = await doGenerate();
        await this.answered(result.content, window, context);
        return result;
      },
      wrapStream: async ({ doStream, params }) => {
        const context = this.windows.current();
        const window = await this.windowOf(params.prompt as AiSdkPrompt, params.tools);
        const { stream, ...rest } = await doStream();
        // Each text of the answer by its id, in order: the prompt holds each as a part of its own (`partsText`).
        const texts = new Map<string, string>();
        const tracked = stream.pipeThrough(
          new TransformStream<StreamPart, StreamPart>({
            transform: (part, controller) => {
              // Remembered before the part goes on: the SDK runs the tool once it reads the call.
              if (part.type === 'tool-call') this.proposed(part, window, context);
              else if (part.type === 'text-delta') texts.set(part.id, (texts.get(part.id) ?? '') + part.delta);
              controller.enqueue(part);
            },
            flush: async () => {
              await this.labeller.labelAnswer([...texts.values()].join('\n'), window);
            },
          }),
        );
        return { ...rest, stream: tracked };
      },
    };
  }

  /** The window of one model call: every message of its prompt, labelled (the call's tools are the application's). */
  private async windowOf(
    prompt: AiSdkPrompt,
    tools: readonly { readonly name: string }[] = [],
  ): Promise<ProvenanceWindow> {
    this.labeller.offer(tools.map(({ name }) => name));
    const lastAnswer = prompt.findLastIndex(({ role }) => role === 'assistant' || role === 'tool');
    const caller = enclosingToolCallWindow();
    for (const message of prompt.slice(lastAnswer + 1))
      if (message.role === 'user') await this.labeller.labelInput(partsText(message.content), caller);
    const items: LabelledContent[] = [];
    for (const message of prompt) items.push(...(await this.itemsOf(message)));
    return ProvenanceWindow.of(items);
  }

  private async itemsOf(message: AiSdkMessage): Promise<readonly LabelledContent[]> {
    if (message.role === 'system') return this.labeller.itemsOf('system', message.content);
    if (message.role === 'user') return this.labeller.itemsOf('user', partsText(message.content));
    if (message.role === 'assistant') {
      const items = [...(await this.labeller.itemsOf('assistant', partsText(message.content)))];
      // A call the model proposed earlier carries what its window made untrusted (ADR 0128).
      for (const part of message.content)
        if (part.type === 'tool-call')
          items.push(
            ...(await this.labeller.proposedCall(
              part.input,
              this.windows.windowOf({ id: part.toolCallId, input: part.input }),
            )),
          );
      return items;
    }
    const items: LabelledContent[] = [];
    for (const part of message.content) {
      // A human's denial of an approval is the application's answer, not the tool's: it holds nothing to label.
      if (part.type !== 'tool-result' || part.output.type === 'execution-denied') continue;
      const text = toolResultText(part.output);
      const bound = this.windows.resultOf(part.toolCallId, text);
      items.push(...(await this.labeller.toolResultOf(text, part.toolName, bound)));
    }
    return items;
  }

  /** The model answered: its tool calls keep the window, its text is labelled as derived from it. */
  private async answered(
    content: GenerateResult['content'],
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): Promise<void> {
    const texts: string[] = [];
    for (const part of content) {
      if (part.type === 'tool-call') this.proposed(part, window, context);
      else if (part.type === 'text') texts.push(part.text);
    }
    await this.labeller.labelAnswer(texts.join('\n'), window);
  }

  private proposed(
    call: { toolCallId: string; input: string },
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): void {
    this.windows.remember({ id: call.toolCallId, input: toolCallInput(call.input) }, window, context);
  }
}

/** Whether `fn` is an `async function*`, whose calls return a stream rather than a promise. */
function isAsyncGenerator(fn: unknown): boolean {
  return (
    typeof fn === 'function' &&
    (fn as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === 'AsyncGeneratorFunction'
  );
}
