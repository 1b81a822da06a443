import type { AgentOutputItem, Model, ModelRequest, StreamEvent, Tool } from '@openai/agents';
import type { Trust } from '../context-release/trust.js';
import type { ActionContext } from '../context/action-context.js';
import type { ContextLabeller } from '../provenance/context-labeller.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import { enclosingToolCallWindow } from '../provenance/provenance-scope.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { RuntimeCallWindows, RuntimeToolCall } from '../runtimes/runtime-call-windows.js';
import { toolCallInput } from '../runtimes/tool-call-input.js';
import { contentText, inputItems, windowTextOf } from './agents-input.js';
import { wrappedModel } from './wrapped-model.js';

/** Function tools whose `invoke` a tracker already runs in its call's window. */
const wrapped = new WeakSet<object>();

/**
 * Labels everything that enters an OpenAI Agents model call and hands every function call the model proposes
 * the window it was proposed in (docs/runtimes/openai-agents.md, ADR 0106): a wrapper around the agent's
 * `Model` (the SDK's one hook that sees both a call's input and its output; input guardrails and run hooks see
 * neither the window of each call nor its calls' ids). Labels are the LangChain tracker's (docs/provenance.md §1):
 * the agent's instructions are the application's; the user items at the end of the input (after the last model
 * output or tool result) are this turn's input, the principal's; a bound tool's result carries its capability's
 * declared labels; any other tool's result, hosted tool item or history nobody labelled is untrusted; a model
 * answer is derived from its whole window.
 *
 * A handoff keeps both the actor (the run's action context) and the window: the next agent's model reads the
 * same history, whose labels the module remembers, so a value that came from an untrusted result is still
 * untrusted after it (give every agent of the run a tracked model).
 *
 * @example
 * const agent = new Agent({ name: 'Support', model: tracker.model(new OpenAIResponsesModel(client, 'gpt-4.1')), tools });
 */
export class AgentsProvenanceTracker {
  constructor(
    private readonly labeller: ContextLabeller,
    private readonly windows: RuntimeCallWindows,
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
        const window = await this.windowOf(request);
        const response = await inner.getResponse(request);
        await this.answered(response.output, window, context);
        return response;
      },
      getStreamedResponse: (request) => this.streamed(inner, request),
    });
  }

  private async *streamed(inner: Model, request: ModelRequest): AsyncIterable<StreamEvent> {
    const context = this.windows.current();
    const window = await this.windowOf(request);
    for await (const event of inner.getStreamedResponse(request)) {
      // The runner runs the calls once the response is done: the window is left before the event goes on.
      if (event.type === 'response_done')
        await this.answered(event.response.output as unknown as AgentOutputItem[], window, context);
      yield event;
    }
  }

  private async windowOf(request: ModelRequest): Promise<ProvenanceWindow> {
    // The tools and handoffs the model is offered are the application's; a result under any other name is not.
    this.labeller.offer([
      ...request.tools.map(({ name }) => name),
      ...request.handoffs.map(({ toolName }) => toolName),
    ]);
    const items = inputItems(request);
    const lastAnswer = items.findLastIndex((item) => windowTextOf(item)?.role !== 'user');
    const caller = enclosingToolCallWindow();
    for (const item of items.slice(lastAnswer + 1)) {
      const text = windowTextOf(item);
      if (text?.role === 'user') await this.labeller.labelInput(text.text, caller);
    }
    const labelled: LabelledContent[] = [];
    if (request.systemInstructions !== undefined)
      labelled.push(...(await this.labeller.itemsOf('system', request.systemInstructions)));
    for (const item of items) {
      const call = functionCallOf(item);
      // A call the model proposed earlier carries what its window made untrusted (ADR 0128).
      if (call !== undefined)
        labelled.push(...(await this.labeller.proposedCall(call.input, this.windows.windowOf(call))));
      const text = windowTextOf(item);
      if (text === undefined) continue;
      if (text.role !== 'tool') {
        labelled.push(...(await this.labeller.itemsOf(text.role, text.text)));
        continue;
      }
      // Found by the call that returned it (its id; the call itself may be on the provider's side).
      const bound = this.windows.resultOf((item as { callId?: string }).callId ?? '', text.text);
      labelled.push(...(await this.labeller.toolResultOf(text.text, text.toolName, bound)));
    }
    return ProvenanceWindow.of(labelled);
  }

  private async answered(
    output: readonly AgentOutputItem[],
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): Promise<void> {
    const texts: string[] = [];
    for (const item of output) {
      const call = functionCallOf(item);
      if (call !== undefined) this.windows.remember(call, window, context);
      else if ((item as { role?: string }).role === 'assistant')
        texts.push(contentText((item as { content?: unknown }).content));
    }
    await this.labeller.labelAnswer(texts.join(''), window);
  }
}

/** A function call of the model's, as its tool gets it: its id and parsed arguments. */
function functionCallOf(item: unknown): RuntimeToolCall | undefined {
  const call = item as { type?: string; callId?: string; arguments?: string };
  if (call.type !== 'function_call' || call.callId === undefined) return undefined;
  return { id: call.callId, input: toolCallInput(call.arguments ?? '') };
}
