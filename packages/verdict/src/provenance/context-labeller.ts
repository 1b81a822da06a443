import { Trust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { contentRecord } from './content-record.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import { labelResult } from './label-result.js';
import { proposedCallValues } from './proposed-call-values.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type ProvenanceRecord, ProvenanceRecordKind } from './provenance-record.js';
import { calledToolSource, ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';
import type { ProvenanceWindow } from './provenance-window.js';
import { carryAnswer, enclosingToolCallWindow, leaveUnread } from './provenance-scope.js';
import { asDelegated, CALLER, isDelegatedInput } from './vouching-content.js';
import { SAID } from './provenance-labels.js';
import { keylessPrincipal } from './label-principal.js';
import type { ProvenanceTrackerWiring } from './provenance-tracker-wiring.js';

/** Human messages in an agent's input that nobody labelled: restored history, or text the tracker forgot. */
const UNLABELLED_HISTORY = ProvenanceSource.create(ProvenanceSourceKind.Unobserved, 'history');
/** A model answer in the window that no step of this module saw produced. */
const UNOBSERVED_ANSWER = ProvenanceSource.agent('unobserved');
const PRINCIPAL = ProvenanceSource.user('principal');
/** The application's own instructions: an agent's system prompt. */
export const APPLICATION_PROMPT = ProvenanceSource.application('system-prompt');
/** Sources whose labels say who wrote a text (a principal, a model), never what a tool returned. */
const SPOKEN: ReadonlySet<string> = new Set([...SAID, ProvenanceSourceKind.Unobserved]);

/**
 * {@link ContextLabeller.proposedCall}'s answers, by the window a call was proposed in (which belongs to one module)
 * and the fingerprint of its arguments: computed, and recorded in the ledger, once, whichever tracker asks.
 */
const carried = new WeakMap<ProvenanceWindow, Map<string, readonly LabelledContent[]>>();

/** Options of a provenance tracker, whatever the agent runtime. */
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
  /**
   * This agent only runs as another agent's sub-agent: its input is a calling model's text, never the principal's
   * (ADR 0146). Inside the tool call that delegates to it, its input vouches through the caller's window as any
   * sub-agent's does; outside it (a queued job, a LangGraph node of its own) its input is not labelled the principal's,
   * so it is untrusted history unless the module knows the text. Default `false`: an agent started outside any tool
   * call reads its input as the principal's message.
   */
  readonly subAgent?: boolean;
}

/** The role of a message of a window, as every runtime has them. */
export type WindowRole = 'system' | 'user' | 'tool' | 'assistant';

/** How a tool that answered was made: bound to a capability, one of Verdict's own labelling tools, or neither. */
export interface AnsweringTool {
  /** The capability a bound or guarded tool runs. */
  readonly capability?: string;
  /** Verdict's own tools (quarantined extraction) that label their results themselves. */
  readonly ownLabelled?: boolean;
}

/**
 * The runtime-neutral half of every provenance tracker (LangChain middleware, AI SDK language-model middleware,
 * OpenAI Agents model): which label each text of an agent's window gets, and what goes to the module's shared
 * labels and provenance ledger (docs/provenance.md §1). Each runtime's tracker reads its own message shapes and
 * asks this class for the labels.
 */
export class ContextLabeller {
  /** `agent:<name>`: the source of this agent's answers. */
  readonly agent: ProvenanceSource;

  constructor(
    readonly wiring: ProvenanceTrackerWiring,
    private readonly options: ProvenanceTrackerOptions = {},
  ) {
    this.agent = ProvenanceSource.agent(options.agent ?? 'agent');
    // `agent:caller` is the source of a sub-agent's input, which vouches for values: no agent answers under it.
    if (this.agent.toString() === CALLER.toString())
      throw new VerdictConfigurationError(`The agent name "${CALLER.name}" is reserved for a sub-agent's input.`);
  }

  /** Labels text the application puts into an agent's input itself. */
  async label(text: string, source: ProvenanceSource, trust: Trust): Promise<void> {
    await this.remember(text, [labelContent(text, source, trust)]);
  }

  /**
   * The principal's input of this turn (ADR 0041): trusted `user:principal`, unless the module already labelled
   * the text. An agent started inside another agent's tool call (`caller`: the window that call was proposed
   * in) reads input the calling agent's model wrote: as trusted as that window, and vouching for a value only where
   * that window's trusted content holds it too (`asDelegated`, ADR 0146).
   */
  async labelInput(text: string, caller: ProvenanceWindow | undefined): Promise<void> {
    if (text === '') return;
    if (caller?.untrusted === true)
      await this.remember(
        text,
        caller.untrustedSources().map(({ source }) => labelContent(text, source, Trust.Untrusted)),
      );
    else {
      const recalled = this.recall(text);
      // A sub-agent's task always carries the mark: in its window it then vouches through its caller alone, whatever
      // else the same text was (a sentence the principal once typed, another principal's trusted result).
      if (caller !== undefined) {
        if (recalled?.some(isDelegatedInput) !== true)
          await this.remember(text, [labelContent(text, CALLER, Trust.Trusted)]);
      }
      // A text that was once a sub-agent's task, typed now by the principal: theirs as well (outside a tool call the
      // task's mark vouches for nothing). A sub-agent run outside its caller's tool call has no principal's input.
      else if (this.options.subAgent !== true && (recalled === undefined || recalled.every(isDelegatedInput)))
        await this.remember(text, [labelContent(text, PRINCIPAL, Trust.Trusted)]);
    }
  }

  /**
   * The model answered `text` from `window`: labelled `agent:<name>`, untrusted when anything in the window was,
   * with a derivation edge to every item of the window, and handed up to the tool call the agent runs inside, if any
   * (a sub-agent's answer: that call's result carries its label, ADR 0040). `undefined` for an empty answer; an
   * empty answer from an untrusted window still hands its label up, because a sub-agent may answer only through
   * tool calls (structured output written as a tool call), and what its caller returns is then made of them.
   */
  async labelAnswer(text: string, window: ProvenanceWindow): Promise<LabelledContent | undefined> {
    if (text === '') {
      if (window.untrusted) carryAnswer(labelContent(text, this.agent, Trust.Untrusted));
      return undefined;
    }
    const item = labelContent(text, this.agent, window.untrusted ? Trust.Untrusted : Trust.Trusted);
    const now = this.wiring.clock();
    const edges = window.items.map((parent) => contentRecord(item, ProvenanceRecordKind.Derivation, now, parent));
    await this.remember(text, [item], edges);
    carryAnswer(item);
    return item;
  }

  /**
   * The model proposed the call `id` to the tool `name`, whose result a runtime's tool (AI SDK, OpenAI Agents) makes
   * outside the tracker: inside a delegating tool call (this agent is a sub-agent) that result is left unread until a
   * tracked model call there reads it (ADR 0211). A run that ends on the call (`stopWhen` at the tool step, the
   * Agents SDK's `toolUseBehavior`) hands its caller the result as it came, and no observed model read it: the
   * caller's result is then untrusted under the tool's source — unless this tracker names the tool in `trustedTools`.
   * A bound tool's declared labels are not known before its result is read: fail closed.
   */
  proposedTool(id: string, name: string): void {
    leaveUnread(id, [labelContent('', this.toolSourceOf(name), this.unboundTrust(name))]);
  }

  /**
   * What a tool call the model proposed carries into a later window that shows it (`proposedCallValues`, ADR
   * 0128): the values the negative rule found in untrusted content of `proposedIn`, the window it was proposed in,
   * untrusted under their sources. Nothing when that window is not known (another process's call, or one the
   * module forgot: the positive rule still refuses its values), nor for arguments that are not plain JSON. Kept
   * with the call's window, never by text: another conversation's identical call carries nothing from it. The
   * first time, the labels and a derivation edge to each untrusted item of that window under their source go to
   * the ledger.
   */
  async proposedCall(args: unknown, proposedIn: ProvenanceWindow | undefined): Promise<readonly LabelledContent[]> {
    if (proposedIn === undefined || !proposedIn.untrusted) return [];
    let key: string;
    try {
      key = fingerprint(args);
    } catch {
      return [];
    }
    const known = carried.get(proposedIn) ?? new Map<string, readonly LabelledContent[]>();
    carried.set(proposedIn, known);
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const items = proposedCallValues(args, proposedIn);
    known.set(key, items);
    if (items.length > 0 && this.wiring.ledger !== undefined) {
      const now = this.wiring.clock();
      const parents = (item: LabelledContent) =>
        proposedIn.items.filter(
          ({ label }) => label.trust === Trust.Untrusted && label.source.toString() === item.label.source.toString(),
        );
      await this.wiring.ledger.append(
        items.flatMap((item) => [
          contentRecord(item, ProvenanceRecordKind.Label, now),
          ...parents(item).map((parent) => contentRecord(item, ProvenanceRecordKind.Derivation, now, parent)),
        ]),
      );
    }
    return items;
  }

  /**
   * A tool answered `text`. A bound tool's result carries its capability's declared labels (unless the tool is
   * named in `tools`: then it is its source's, ADR 0083); Verdict's own tools keep the labels they gave; any
   * other tool's result is its source's, untrusted unless named in `trustedTools`. When an agent that ran inside
   * the call answered from untrusted content (`carried`), the result is untrusted under that agent's source,
   * whatever the tool declares (ADR 0040).
   */
  async labelToolResult(
    text: string,
    name: string,
    tool: AnsweringTool,
    carried: readonly LabelledContent[],
  ): Promise<readonly LabelledContent[]> {
    const named = this.names(name);
    let items =
      tool.capability !== undefined && !named
        ? labelResult(text, tool.capability, this.wiring.resultProvenance(tool.capability))
        : tool.ownLabelled === true
          ? (this.recall(text) ?? [labelContent(text, this.toolSourceOf(name), Trust.Untrusted)])
          : [labelContent(text, this.toolSourceOf(name), this.unboundTrust(name))];
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
    return this.remember(text, items, edges);
  }

  /**
   * A tool result read from a runtime's prompt (AI SDK, OpenAI Agents), whose tools run outside the tracker: the
   * labels a bound tool gave it, found by the call that returned it (`bound`) — unless the tool is named in `tools`:
   * its result is then that source's all the same (ADR 0083) — else its tool's label, as
   * {@link labelToolResult} labels an unbound tool's result — untrusted unless the tool is named in `tools` or
   * `trustedTools` — beside any other labels the module remembers for the same text. Those cannot clear it: a text
   * also seen untrusted is never trusted content. A text that already carries its tool's label (an earlier step) is
   * not read again. When an agent that ran inside the call answered from untrusted content (`carried`, found by the
   * call), the result is untrusted under that agent's source, whatever `trustedTools` says (ADR 0040). `bound` is
   * `null` for a bound tool's result whose text changed on its way (a model-input guard listed outside the tracker
   * released it): its declared labels cannot be placed in it, nor is it an unbound tool's result that `trustedTools`
   * could vouch for — it is untrusted, under its tool's source.
   */
  async toolResultOf(
    text: string,
    toolName: string | undefined,
    bound: readonly LabelledContent[] | null | undefined,
    carried: readonly LabelledContent[] = [],
  ): Promise<readonly LabelledContent[]> {
    const name = toolName ?? 'unknown';
    if (bound === null && !this.names(name))
      return this.remember(text, [labelContent(text, this.toolSourceOf(name), Trust.Untrusted)]);
    if (bound !== undefined && bound !== null && !this.names(name)) return bound;
    if (carried.some(({ label }) => label.trust === Trust.Untrusted))
      return this.labelToolResult(text, name, {}, carried);
    const source = this.toolSourceOf(name).toString();
    const trust = this.unboundTrust(name);
    const recalled = this.recall(text);
    if (recalled?.some(({ label }) => label.trust === trust && label.source.toString() === source)) return recalled;
    return this.labelToolResult(text, name, {}, []);
  }

  /** Text a tool put into the agent's state as a message of any role: the tool's output, hence untrusted. */
  async labelToolOutput(text: string, name: string): Promise<void> {
    if (text !== '') await this.remember(text, [labelContent(text, this.toolSourceOf(name), Trust.Untrusted)]);
  }

  /**
   * The names of the tools a runtime offers its model (the application's tools): a result under any other name
   * answered a call to no tool, and that name is text the model wrote ({@link toolSourceOf}).
   */
  offer(names: Iterable<unknown>): void {
    for (const name of names) if (typeof name === 'string') this.wiring.labels.offer(name);
  }

  /**
   * The source of a tool's output: the source the application named for it (`tools`), else `tool:<name>` for a
   * tool the runtime offers its model (or one named in `trustedTools`), else `tool:sha256-…`: a name the model
   * invented reaches no label, evidence record or event (docs/provenance.md).
   */
  private toolSourceOf(name: string): ProvenanceSource {
    if (this.names(name)) return this.options.tools![name]!;
    return calledToolSource(
      name,
      this.wiring.labels.isOffered(name) || this.options.trustedTools?.includes(name) === true,
    );
  }

  /** Whether `name` is one of the tools the application named a source for. */
  names(name: string): boolean {
    return this.options.tools !== undefined && Object.hasOwn(this.options.tools, name);
  }

  /**
   * The labels of a text of the window that no step of this tracker labelled as it entered: the labels the
   * module remembers for it (for a tool result, not when only principals or agents gave them), else by role — the
   * system prompt is the application's (trusted); a user message nobody labelled (history) may hold anything (ADR
   * 0041); a tool result is its tool's, untrusted; a model answer Verdict did not see produced is untrusted.
   */
  async itemsOf(role: WindowRole, text: string, toolName = 'unknown'): Promise<readonly LabelledContent[]> {
    if (text === '') return [];
    const recalled = this.recall(text);
    // Labels are the module's, by text: what a principal typed or an agent answered says who wrote the same text
    // elsewhere (another actor, say), not what this tool returned. A tool result keeps them only next to a label a
    // tool's result was given (a bound tool's declared labels, a source the application named).
    if (recalled !== undefined && (role !== 'tool' || recalled.some(({ label }) => !SPOKEN.has(label.source.kind))))
      return recalled;
    if (role === 'system') return this.remember(text, [labelContent(text, APPLICATION_PROMPT, Trust.Trusted)]);
    if (role === 'tool') return this.remember(text, [labelContent(text, this.toolSourceOf(toolName), Trust.Untrusted)]);
    // Not remembered by text: the same text typed later by a principal (a new conversation, the next turn) is theirs.
    return [labelContent(text, role === 'user' ? UNLABELLED_HISTORY : UNOBSERVED_ANSWER, Trust.Untrusted)];
  }

  /**
   * The labels of a history text that may not vouch for the same text elsewhere (a system message in an agent's
   * state, which a tool may have put there): the labels the module remembers for it, else untrusted history, which
   * is not remembered by text — a new conversation beginning with the same text is labelled as it begins.
   */
  historyItems(text: string): readonly LabelledContent[] {
    if (text === '') return [];
    return this.recall(text) ?? [labelContent(text, UNLABELLED_HISTORY, Trust.Untrusted)];
  }

  /**
   * Remembers labels (and derivation edges) of a text; fresh labels and the edges go to the ledger. What a principal
   * said — what they typed, what their agents answered — and every trusted label given in a principal's action
   * context are remembered for that principal alone ({@link ProvenanceLabels}): the same text in another principal's
   * window (their history, a tool result) is neither theirs nor vouched for.
   */
  async remember(
    text: string,
    items: readonly LabelledContent[],
    edges: readonly ProvenanceRecord[] = [],
  ): Promise<readonly LabelledContent[]> {
    const labels = this.wiring.labels;
    const principal = this.principal();
    const before = labels.recall(text, principal) ?? [];
    const merged = labels.remember(text, items, principal);
    const fresh = merged.filter((item) => !before.includes(item));
    const now = this.wiring.clock();
    const records = [...fresh.map((item) => contentRecord(item, ProvenanceRecordKind.Label, now)), ...edges];
    if (records.length > 0) await this.wiring.ledger?.append(records);
    return merged;
  }

  /** The labels the module remembers for a text, as the current principal meets it. */
  private recall(text: string): readonly LabelledContent[] | undefined {
    const recalled = this.wiring.labels.recall(text, this.principal());
    // In a sub-agent, its input vouches through the window of the tool call it runs in (ADR 0146).
    return recalled === undefined ? undefined : asDelegated(recalled, text, enclosingToolCallWindow());
  }

  /**
   * The current principal's key, named to the labels explicitly (a `ProvenanceLabels` built without a principal
   * resolver still keeps what a principal said, and what their context vouched for, theirs); `undefined` outside any
   * action context. An actor without a stable key is known by its action context.
   */
  private principal(): string | undefined {
    const context = this.wiring.context();
    return context === undefined ? undefined : (this.wiring.principal(context) ?? keylessPrincipal(context));
  }

  /** An unbound tool's result is untrusted unless the application named the tool in `trustedTools`. */
  private unboundTrust(name: string): Trust {
    return this.options.trustedTools?.includes(name) === true ? Trust.Trusted : Trust.Untrusted;
  }
}
