import type { AgentOutputItem, Model, ModelRequest, StreamEvent, Tool } from '@openai/agents';
import { Trust } from '../context-release/trust.js';
import type { ActionContext } from '../context/action-context.js';
import { APPLICATION_PROMPT, type ContextLabeller } from '../provenance/context-labeller.js';
import { labelContent, type LabelledContent } from '../provenance/labelled-content.js';
import { enclosingToolCallWindow, readResults } from '../provenance/provenance-scope.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import type { ProvenanceWindow } from '../provenance/provenance-window.js';
import { extendedWindow } from '../runtimes/extended-window.js';
import { type ProviderConversation, continuesNothing } from '../runtimes/provider-conversation.js';
import type { ProviderConversationWindows } from '../runtimes/provider-conversation-windows.js';
import type { RuntimeCallWindows, RuntimeToolCall } from '../runtimes/runtime-call-windows.js';
import { toolCallInput } from '../runtimes/tool-call-input.js';
import { leftBy } from '../runtimes/window-labellers.js';
import { type AgentsWindowText, contentText, inputItems, requestConversation, windowTextOf } from './agents-input.js';
import { isHandoffOutput } from './handoff-output.js';
import { wrappedModel } from './wrapped-model.js';

/** The result the SDK writes for a handoff its model took: the application's, trusted. */
const HANDOFF = ProvenanceSource.application('agents-handoff');

/** Function tools whose `invoke` a tracker already runs in its call's window. */
const wrapped = new WeakSet<object>();

/**
 * Labels everything that enters an OpenAI Agents model call and hands every function call the model proposes
 * the window it was proposed in (docs/runtimes/openai-agents.md, ADR 0106): a wrapper around the agent's
 * `Model` (the SDK's one hook that sees both a call's input and its output; input guardrails and run hooks see
 * neither the window of each call nor its calls' ids). Labels are the LangChain tracker's (docs/provenance.md §1):
 * the agent's instructions are the application's, and so are the system messages a new conversation's input begins
 * with (any other system message of the input is history: untrusted unless the module labelled its text); the user
 * items at the end of the input (after the last model output or tool result) are this turn's input, the principal's;
 * a bound tool's result carries its capability's declared labels (unless this tracker names the tool in `tools`: then
 * it is that source's, ADR 0083); any other tool's result, hosted tool item or history nobody labelled is untrusted —
 * a hosted tool's item in the window of the function calls of the response that ran it too; a model answer is derived
 * from its whole window.
 *
 * A handoff keeps both the actor (the run's action context) and the window: the next agent's model reads the
 * same history, whose labels the module remembers, so a value that came from an untrusted result is still
 * untrusted after it (give every agent of the run a tracked model). The result the SDK writes for the handoff
 * itself (`{"assistant":"Payer"}`, under the handoff's default tool name) is the application's.
 *
 * A response the provider keeps (`previousResponseId`: the runner then sends only the new items) is read whole (ADR
 * 0151): the tracker keeps what each call read and answered under its response's id, and a request that continues it
 * reads it before its own input; one that continues a response this process did not keep for the principal is
 * unobserved. A conversation the provider stores (`conversationId`) is unobserved: other requests, in this process or
 * another, add to it unseen.
 *
 * @example
 * const agent = new Agent({ name: 'Support', model: tracker.model(new OpenAIResponsesModel(client, 'gpt-4.1')), tools });
 */
export class AgentsProvenanceTracker {
  constructor(
    private readonly labeller: ContextLabeller,
    private readonly windows: RuntimeCallWindows,
    private readonly conversations: ProviderConversationWindows,
  ) {}

  /** Labels content the application puts into the input itself: wherever exactly this text enters, it carries this label. */
  async label(text: string, source: ProvenanceSource, trust: Trust): Promise<void> {
    await this.labeller.label(text, source, trust);
  }

  /**
   * `tools`, each function tool run in the window the tracker saw its call proposed in, for that call only: an agent
   * a tool runs — `agent.asTool()`, with a tracked model of its own — reads its input, which this agent's model wrote,
   * as trusted as that window (unobserved, hence untrusted, when the tracker did not see the call), and an untracked
   * agent's bound calls inside it are unobserved. Each function tool's `invoke` is wrapped in place, once (the SDK
   * knows an agent tool by its object); bound tools of `VerdictAgentsTools` do this themselves, and hosted tools are
   * left as they are.
   *
   * @example new Agent({ name: 'Support', model: tracker.model(base), tools: tracker.tools([payer.asTool({ toolName: 'pay', toolDescription: 'Pays' })]) });
   */
  tools<T extends Tool<any>>(tools: readonly T[]): T[] {
    for (const tool of tools) {
      if (tool.type !== 'function' || wrapped.has(tool)) continue;
      const invoke = tool.invoke.bind(tool);
      tool.invoke = (runContext, input, details) =>
        this.windows.within({ id: details?.toolCall?.callId ?? '', input: toolCallInput(input) }, () =>
          invoke(runContext, input, details),
        );
      wrapped.add(tool);
    }
    return [...tools];
  }

  /** `inner`, tracked: every call's window is labelled, and its function calls find it. */
  model(inner: Model): Model {
    return wrappedModel(inner, {
      getResponse: async (request) => {
        const context = this.windows.current();
        const conversation = requestConversation(request);
        const window = await this.windowOf(request, conversation, context);
        const response = await inner.getResponse(request);
        await this.answered(response.output, window, context);
        await this.kept(response.output, response.responseId, window, context);
        return response;
      },
      getStreamedResponse: (request) => this.streamed(inner, request),
    });
  }

  private async *streamed(inner: Model, request: ModelRequest): AsyncIterable<StreamEvent> {
    const context = this.windows.current();
    const conversation = requestConversation(request);
    const window = await this.windowOf(request, conversation, context);
    for await (const event of inner.getStreamedResponse(request)) {
      // The runner runs the calls once the response is done: the window is left before the event goes on.
      if (event.type === 'response_done') {
        const output = event.response.output as unknown as AgentOutputItem[];
        await this.answered(output, window, context);
        await this.kept(output, event.response.id, window, context);
      }
      yield event;
    }
  }

  /**
   * The window of one model call: what the provider holds of the conversation it continues, then the instructions and
   * every input item, labelled (the call's tools and handoffs are the application's).
   */
  private async windowOf(
    request: ModelRequest,
    conversation: ProviderConversation,
    context: ActionContext | undefined,
  ): Promise<ProvenanceWindow> {
    // The tools and handoffs the model is offered are the application's; a result under any other name is not.
    this.labeller.offer([
      ...request.tools.map(({ name }) => name),
      ...request.handoffs.map(({ toolName }) => toolName),
    ]);
    for (const { toolName } of request.handoffs) this.labeller.wiring.labels.offerHandoff(toolName);
    const items = inputItems(request);
    const lastAnswer = items.findLastIndex((item) => windowTextOf(item)?.role !== 'user');
    // A new conversation (nothing but system and user messages, nothing kept on the provider's side): the system
    // messages it begins with are the application's. Any other system message of the input is history (`itemsOf`).
    const roles = items.map((item) => windowTextOf(item)?.role);
    if (roles.every((role) => role === 'system' || role === 'user') && continuesNothing(conversation))
      for (const item of items) {
        const text = windowTextOf(item);
        if (text?.role !== 'system') break;
        if (text.text !== '') await this.labeller.label(text.text, APPLICATION_PROMPT, Trust.Trusted);
      }
    const caller = enclosingToolCallWindow();
    for (const item of items.slice(lastAnswer + 1)) {
      const text = windowTextOf(item);
      if (text?.role === 'user') await this.labeller.labelInput(text.text, caller);
    }
    const labelled: LabelledContent[] = [];
    if (request.systemInstructions !== undefined)
      labelled.push(...(await this.labeller.itemsOf('system', request.systemInstructions)));
    labelled.push(...(await this.itemsOf(items)));
    // The results this call reads are read: a sub-agent's run that goes on past its tool step hands its caller nothing
    // unread (ADR 0211).
    readResults(items.flatMap((item) => (isRead(item as AgentOutputItem) ? (callIdOf(item) ?? []) : [])));
    return extendedWindow(this.conversations.held(conversation, context), labelled);
  }

  /** The labelled content of input (or output) items, as a later window reads them. */
  private async itemsOf(items: readonly unknown[]): Promise<LabelledContent[]> {
    const labelled: LabelledContent[] = [];
    for (const item of items) {
      const call = functionCallOf(item);
      // A call the model proposed earlier carries what its window made untrusted (ADR 0128).
      if (call !== undefined)
        labelled.push(...(await this.labeller.proposedCall(call.input, this.windows.windowOf(call))));
      const text = windowTextOf(item as Parameters<typeof windowTextOf>[0]);
      if (text === undefined) continue;
      // A system message of the input is the application's only when the module labelled its text (the beginning of
      // a new conversation, a label given at boot): in history it may be anyone's (docs/provenance.md §1).
      if (text.role === 'system') labelled.push(...this.labeller.historyItems(text.text));
      else if (text.role !== 'tool') labelled.push(...(await this.labeller.itemsOf(text.role, text.text)));
      else labelled.push(...(await this.resultOf((item as { callId?: string }).callId ?? '', text)));
    }
    return labelled;
  }

  /**
   * A function result's labels: the SDK's own answer to a handoff it offered is the application's; any other is found
   * by the call that returned it (its id; the call itself may be on the provider's side), with what the agents that
   * ran inside the call answered from untrusted content.
   */
  private async resultOf(callId: string, { text, toolName }: AgentsWindowText): Promise<readonly LabelledContent[]> {
    if (toolName !== undefined && this.labeller.wiring.labels.isHandoff(toolName) && isHandoffOutput(toolName, text))
      return this.labeller.remember(text, [labelContent(text, HANDOFF, Trust.Trusted)]);
    const bound = this.windows.resultOf(callId, text);
    return this.labeller.toolResultOf(text, toolName, bound, this.windows.carriedOf(callId));
  }

  /**
   * The model answered: its function calls keep the window — with the items of the response the model read rather
   * than wrote (a hosted tool's call and output, untrusted), as the AI SDK tracker adds a provider-run tool's result
   * (ADR 0151) — and its text is labelled as derived from it.
   */
  private async answered(
    output: readonly AgentOutputItem[],
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): Promise<void> {
    const seen = extendedWindow(window, await this.itemsOf(output.filter(isRead)));
    leftBy(seen, this.labeller);
    const texts: string[] = [];
    for (const item of output) {
      const call = functionCallOf(item);
      if (call !== undefined) {
        this.windows.remember(call, seen, context);
        // Its result, made outside the tracker, is unread until a later model call reads it (ADR 0211).
        const { name } = item as { name?: unknown };
        this.labeller.proposedTool(call.id, typeof name === 'string' ? name : 'unknown');
      } else if ((item as { role?: string }).role === 'assistant')
        texts.push(contentText((item as { content?: unknown }).content));
    }
    await this.labeller.labelAnswer(texts.join(''), seen);
  }

  /**
   * What the provider now holds (ADR 0151): the call's window and its output — the model's answer, its function calls
   * and hosted tools' items, as a later window reads them — kept under the response's id.
   */
  private async kept(
    output: readonly AgentOutputItem[],
    responseId: string | undefined,
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): Promise<void> {
    if (responseId === undefined || responseId === '') return;
    this.conversations.keep(responseId, extendedWindow(window, await this.itemsOf(output)), context);
  }
}

/**
 * The output items the model writes itself, whose words come from its window rather than into it: its reasoning and
 * its calls — of functions, and of the tools the application runs (a computer, a shell, an apply-patch editor), a tool
 * search's query, the program it writes for the provider to run. Their outputs (`computer_call_result`,
 * `shell_call_output`, `apply_patch_call_output`, `tool_search_output`, `program_output`) are what the model reads.
 * A hosted tool's call is not here: its item carries the tool's output.
 */
const WRITTEN_ITEMS: ReadonlySet<string> = new Set([
  'function_call',
  'reasoning',
  'computer_call',
  'shell_call',
  'apply_patch_call',
  'tool_search_call',
  'program',
]);

/**
 * Whether the model read an output item rather than wrote it: anything but its message and the items it writes
 * ({@link WRITTEN_ITEMS}: the model's own words, as the AI SDK tracker reads reasoning) — a hosted tool's call and
 * output, a tool's output, a compaction, an item this version does not know.
 */
function isRead(item: AgentOutputItem): boolean {
  const { type, role } = item as { type?: string; role?: string };
  return !WRITTEN_ITEMS.has(type ?? '') && role !== 'assistant';
}

/** A function call of the model's, as its tool gets it: its id and parsed arguments. */
function functionCallOf(item: unknown): RuntimeToolCall | undefined {
  const call = item as { type?: string; callId?: string; arguments?: string };
  if (call.type !== 'function_call' || call.callId === undefined) return undefined;
  return { id: call.callId, input: toolCallInput(call.arguments ?? '') };
}

/** The id of the call an input item answers (a function's result, a computer's or a shell's output), if it has one. */
function callIdOf(item: unknown): string | undefined {
  const { callId } = item as { callId?: unknown };
  return typeof callId === 'string' ? callId : undefined;
}
