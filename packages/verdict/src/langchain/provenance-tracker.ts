import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { Trust } from '../context-release/trust.js';
import { labelContent, type LabelledContent } from '../provenance/labelled-content.js';
import { labelResult } from '../provenance/label-result.js';
import { contentRecord } from '../provenance/content-record.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import type { ProvenanceLedger } from '../provenance/provenance-ledger.interface.js';
import { type ProvenanceRecord, ProvenanceRecordKind } from '../provenance/provenance-record.js';
import { carryAnswer, enclosingToolCallWindow, withToolCallProvenance } from '../provenance/provenance-scope.js';
import { ProvenanceSource, ProvenanceSourceKind } from '../provenance/provenance-source.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { ResultProvenance } from '../provenance/result-provenance.js';
import { VerdictTool } from './verdict-tool.js';
import { threadOf } from './thread-of.js';
import { LabelledRetriever } from './labelled-retriever.js';
import type { BaseRetrieverInterface } from '@langchain/core/retrievers';
import { RELEASE_SEAL_KEY } from './release-seal.js';
import { toolCallOf } from './tool-call-of.js';
import { textOf } from './message-text.js';
import { isOwnLabelledTool } from './own-labelled-tool.js';

/** Human messages in an agent's input that nobody labelled: restored history, or text the tracker forgot. */
const UNLABELLED_HISTORY = ProvenanceSource.create(ProvenanceSourceKind.Unobserved, 'history');
const PRINCIPAL = ProvenanceSource.user('principal');
/** A sub-agent's input, written by the agent whose tool call started it. */
const CALLER = ProvenanceSource.agent('caller');

/** Options of a {@link ProvenanceTracker}. */
export interface ProvenanceTrackerOptions {
  /** This agent's name: its answers are labelled `agent:<name>`, derived from their window. Default `'agent'`. */
  readonly agent?: string;
  /**
   * The sources of tools that are not bound to a capability, by tool name: an MCP server, a retriever, a
   * memory store. Their results are untrusted whatever the source. Default: `tool:<tool name>`. A bound tool
   * named here (an MCP tool routed through a capability) is labelled the same way: its result is the source's,
   * not what its capability declares.
   * @example tools: { read_file: ProvenanceSource.mcp('files'), search_docs: ProvenanceSource.retrieval('help-center') }
   */
  readonly tools?: Readonly<Record<string, ProvenanceSource>>;
  /**
   * Tools named in `tools` whose results the application trusts, by name (a per-tool override: say, an MCP server it runs
   * itself; `pinnedMcpTools(...).trustedTools`). Their results are labelled trusted under their source. Default: none.
   */
  readonly trustedTools?: readonly string[];
}

/** What a tracker needs from the module: shared labels, the capabilities' result provenance, the ledger. */
export interface ProvenanceTrackerWiring {
  readonly labels: ProvenanceLabels;
  readonly resultProvenance: (capability: string) => ResultProvenance | undefined;
  readonly ledger?: ProvenanceLedger;
  readonly clock: () => Date;
}

/**
 * Labels everything that enters an agent's context, without the application threading labels by hand
 * (docs/provenance.md): a langchain v1 agent middleware, placed before the model-input guard.
 * - The system prompt is the application's, trusted; the human messages of the current turn's input are the
 *   principal's (`user:principal`, trusted); a released `contextMessage` carries its label in the guard's seal;
 *   any other human message the module never labelled (history from another process) is untrusted (ADR 0041).
 * - Each tool call's window is that call's only: a sub-agent started inside it has its own window (its input as
 *   trusted as the caller's window), or none (its bound calls are unobserved); an untrusted answer of a sub-agent
 *   makes the carrying tool's result untrusted, whatever the tool declares (ADR 0040).
 * - A bound tool's result carries its capability's declared `provenance.results`, whole or per path;
 *   any other tool's result (MCP, retrievers, plain tools) is untrusted.
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
  private readonly agent: ProvenanceSource;
  private readonly byMessage = new WeakMap<BaseMessage, readonly LabelledContent[]>();
  private readonly windowsByAnswer = new WeakMap<BaseMessage, ProvenanceWindow>();

  constructor(
    private readonly wiring: ProvenanceTrackerWiring,
    private readonly options: ProvenanceTrackerOptions = {},
  ) {
    this.agent = ProvenanceSource.agent(options.agent ?? 'agent');
  }

  /**
   * Labels content the application puts into an agent's input itself (a retrieved document, a memory, another
   * system's text): wherever exactly this text enters a tracked window, it carries this label.
   *
   * @example await tracker.label(document.pageContent, ProvenanceSource.retrieval('help-center'), Trust.Untrusted);
   */
  async label(text: string, source: ProvenanceSource, trust: Trust): Promise<void> {
    await this.remember(text, [labelContent(text, source, trust)]);
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
        const response = await handler(request);
        // Labelled after the call: the model-input guard, inside it, has read the labels its seals vouch for.
        const messages = [request.systemMessage, ...request.messages];
        const items: LabelledContent[] = [];
        for (const message of messages) items.push(...(await this.itemsOf(message)));
        const window = ProvenanceWindow.of(items);
        if (AIMessage.isInstance(response)) await this.answered(response, window, threadOf(request.runtime));
        return response;
      },
      wrapToolCall: async (request, handler) => {
        const id = request.toolCall.id ?? '';
        const thread = threadOf(request.runtime);
        const window =
          this.windowOfCall(request.state as { messages?: unknown }, id) ??
          (thread === undefined ? undefined : this.wiring.labels.window(thread, id)) ??
          ProvenanceWindow.unobserved();
        const call = toolCallOf((request.runtime as { configurable?: unknown } | undefined)?.configurable, id);
        const { result, carried } = await withToolCallProvenance(window, call, () => handler(request));
        if (ToolMessage.isInstance(result))
          await this.toolAnswered(result, request.tool, request.toolCall.name, carried);
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
    const caller = enclosingToolCallWindow();
    for (let i = list.length - 1; i >= 0 && HumanMessage.isInstance(list[i]); i--) {
      const message = list[i]!;
      const text = textOf(message);
      if (text === '' || message.additional_kwargs?.[RELEASE_SEAL_KEY] !== undefined) continue;
      // A sub-agent's input was written by the calling agent's model: it is as trusted as the caller's window.
      if (caller?.untrusted === true)
        await this.remember(
          text,
          caller.untrustedSources().map(({ source }) => labelContent(text, source, Trust.Untrusted)),
        );
      else if (this.wiring.labels.recall(text) === undefined)
        await this.remember(text, [labelContent(text, caller === undefined ? PRINCIPAL : CALLER, Trust.Trusted)]);
    }
  }

  /** The model answered: its tool calls keep the window, its text is labelled as derived from it. */
  private async answered(answer: AIMessage, window: ProvenanceWindow, thread: string | undefined): Promise<void> {
    this.windowsByAnswer.set(answer, window);
    if (thread !== undefined)
      for (const call of answer.tool_calls ?? [])
        if (call.id !== undefined) this.wiring.labels.rememberWindow(thread, call.id, window);
    const text = textOf(answer);
    if (text === '') return;
    const item = labelContent(text, this.agent, window.untrusted ? Trust.Untrusted : Trust.Trusted);
    const now = this.wiring.clock();
    const edges = window.items.map((parent) => contentRecord(item, ProvenanceRecordKind.Derivation, now, parent));
    await this.remember(text, [item], edges);
    this.byMessage.set(answer, [item]);
    // A sub-agent's answer goes up to the tool call of the agent that ran it, whose result carries its label.
    carryAnswer(item);
  }

  /**
   * A tool answered. When an agent that ran inside the call answered from untrusted content (or an agent without
   * a tracker made a bound call there), the result is untrusted under that agent's source, whatever the tool's
   * declared labels: the answer it carries is derived from a window the tool's declaration knows nothing of.
   */
  private async toolAnswered(
    result: ToolMessage,
    tool: unknown,
    name: string,
    carried: readonly LabelledContent[],
  ): Promise<void> {
    const text = textOf(result);
    const capability = tool instanceof VerdictTool ? tool.capability : undefined;
    // A tool named in `tools` answers with its source's content, bound or not: a routed MCP tool's result is the
    // remote server's, whatever its capability declares (ADR 0083).
    const named = this.options.tools !== undefined && Object.hasOwn(this.options.tools, name);
    let items =
      capability !== undefined && !named
        ? labelResult(text, capability, this.wiring.resultProvenance(capability))
        : isOwnLabelledTool(tool)
          ? // Verdict's own tools label their results: an extracted value keeps its source's (docs/quarantine.md).
            (this.wiring.labels.recall(text) ?? [labelContent(text, toolSource(name), Trust.Untrusted)])
          : [labelContent(text, this.options.tools?.[name] ?? toolSource(name), this.unboundTrust(name))];
    const tainting = carried.filter((item) => item.label.trust === Trust.Untrusted);
    let edges: ProvenanceRecord[] = [];
    if (tainting.length > 0) {
      const sources = new Map(tainting.map(({ label }) => [label.source.toString(), label.source]));
      const whole = [...sources.values()].map((source) => labelContent(text, source, Trust.Untrusted));
      items = [...items.filter((item) => item.label.trust === Trust.Untrusted), ...whole];
      const now = this.wiring.clock();
      edges = whole.flatMap((item) =>
        tainting.map((parent) => contentRecord(item, ProvenanceRecordKind.Derivation, now, parent)),
      );
    }
    this.byMessage.set(result, await this.remember(text, items, edges));
  }

  /** An unbound tool's result is untrusted unless the application named the tool in `trustedTools`. */
  private unboundTrust(name: string): Trust {
    return this.options.trustedTools?.includes(name) === true ? Trust.Trusted : Trust.Untrusted;
  }

  /**
   * A tool returned a Command: whatever messages it puts in the state — a human or system message included —
   * are the tool's output, hence untrusted.
   */
  private async commandAnswered(result: unknown, name: string): Promise<void> {
    const update = (result as { update?: { messages?: unknown } } | undefined)?.update;
    const messages = Array.isArray(update?.messages) ? (update.messages as unknown[]) : [];
    const source = this.options.tools?.[name] ?? toolSource(name);
    for (const message of messages) {
      const text = isMessage(message)
        ? textOf(message)
        : typeof message === 'string'
          ? message
          : JSON.stringify(message);
      if (text !== '') await this.remember(text, [labelContent(text, source, Trust.Untrusted)]);
    }
  }

  /** The window the call was proposed in, found by the very answer that proposed it. */
  private windowOfCall(state: { messages?: unknown }, id: string): ProvenanceWindow | undefined {
    const messages = Array.isArray(state?.messages) ? (state.messages as BaseMessage[]) : [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i];
      if (AIMessage.isInstance(message) && (message.tool_calls ?? []).some((call) => call.id === id))
        return this.windowsByAnswer.get(message);
    }
    return undefined;
  }

  /** The labelled items of one message of the window. */
  private async itemsOf(message: BaseMessage): Promise<readonly LabelledContent[]> {
    const known = this.byMessage.get(message);
    if (known !== undefined) return known;
    const text = textOf(message);
    if (text === '') return [];
    const recalled = this.wiring.labels.recall(text);
    if (recalled !== undefined) {
      this.byMessage.set(message, recalled);
      return recalled;
    }
    let item: LabelledContent;
    if (SystemMessage.isInstance(message))
      item = labelContent(text, ProvenanceSource.application('system-prompt'), Trust.Trusted);
    // A human message is the principal's when it is this turn's input (labelled at `beforeAgent`); one nobody
    // labelled — restored history, or forgotten — may hold anything (ADR 0041).
    else if (HumanMessage.isInstance(message)) item = labelContent(text, UNLABELLED_HISTORY, Trust.Untrusted);
    else if (ToolMessage.isInstance(message))
      item = labelContent(text, toolSource(message.name ?? 'unknown'), Trust.Untrusted);
    // A model answer Verdict did not see produced (history from before the tracker) may hold anything.
    else item = labelContent(text, ProvenanceSource.agent('unobserved'), Trust.Untrusted);
    const items = await this.remember(text, [item]);
    this.byMessage.set(message, items);
    return items;
  }

  private async remember(
    text: string,
    items: readonly LabelledContent[],
    edges: readonly ProvenanceRecord[] = [],
  ): Promise<readonly LabelledContent[]> {
    const before = this.wiring.labels.recall(text) ?? [];
    const merged = this.wiring.labels.remember(text, items);
    const fresh = merged.filter((item) => !before.includes(item));
    const now = this.wiring.clock();
    const records = [...fresh.map((item) => contentRecord(item, ProvenanceRecordKind.Label, now)), ...edges];
    if (records.length > 0) await this.wiring.ledger?.append(records);
    return merged;
  }
}

function toolSource(name: string): ProvenanceSource {
  return ProvenanceSource.named(ProvenanceSourceKind.Tool, name);
}

function isMessage(value: unknown): value is BaseMessage {
  return typeof value === 'object' && value !== null && 'content' in value;
}
