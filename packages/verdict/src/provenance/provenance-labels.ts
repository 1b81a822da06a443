import { Trust } from '../context-release/trust.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { withoutPassages } from './extraction-passages.js';
import type { LabelledContent } from './labelled-content.js';
import { ProvenanceSourceKind } from './provenance-source.js';
import type { ProvenanceWindow } from './provenance-window.js';

/**
 * Default number of entries each memory of {@link ProvenanceLabels} keeps — labelled texts, each principal's labels,
 * windows, results, kept windows, tool names: 10,000 each, every memory bounded on its own, oldest forgotten first.
 */
export const DEFAULT_PROVENANCE_CAPACITY = 10_000;

/** Sources of what a principal or their agents said: whatever its trust, that principal's alone. */
export const SAID: ReadonlySet<string> = new Set([ProvenanceSourceKind.User, ProvenanceSourceKind.Agent]);

/**
 * What the provenance trackers of one process remember: the labels of every text that entered an agent's
 * context (so a label follows its text into another agent's window), and the window each tool call was
 * proposed in, by principal, thread and tool call (`callWindowKey`: so a run resumed after an approval finds it
 * again, and no other principal's run can leave it), and the labels of each bound tool's result (AI SDK, OpenAI
 * Agents) or quarantined extraction's (LangChain) by the same key (another principal's tool returning the same text never finds them), what the agents
 * run inside each of the application's own tools answered from untrusted content, and the window of each conversation a
 * provider keeps, by principal. In process memory, each memory bounded on its own (filling one forgets nothing of
 * another): a forgotten window is unobserved, which the provenance stage treats as untrusted, and a forgotten trusted
 * label vouches for nothing.
 *
 * A label is remembered for the principal of the action context it was given in ({@link labelPrincipal}) when it
 * can vouch there — it is trusted (a principal's message, a trusted result, a text the application or its guard
 * vouched for in that context) — or when that principal or their agents said the text: in another principal's
 * window the same text is not vouched for, nor theirs. An untrusted label of any other source is everyone's (a text
 * seen untrusted anywhere is untrusted content everywhere), and so is every label given outside any action context:
 * the application's own, registered at boot. A principal's own labels for a text keep its untrusted labels with them
 * (those everyone's memory still held when they were given, and those given later in that principal's context), so
 * that flooding everyone's memory afterwards cannot leave a trusted label vouching alone.
 */
export class ProvenanceLabels {
  /** Everyone's labels, by text. */
  private readonly texts = new Map<string, readonly LabelledContent[]>();
  /** Labels remembered for one principal only, by principal and text. */
  private readonly own = new Map<string, readonly LabelledContent[]>();
  private readonly windows = new Map<string, ProvenanceWindow>();
  private readonly results = new Map<string, BoundResult>();
  /** Untrusted answers of agents that ran inside a tool call, by principal, thread and call. */
  private readonly carriedByCall = new Map<string, readonly LabelledContent[]>();
  /** The windows providers keep, by principal and conversation or response (`ProviderConversationWindows`). */
  private readonly kept = new Map<string, ProvenanceWindow>();
  /** The tool names runtimes offered their models: the application's tools. */
  private readonly offered = new Map<string, true>();
  /** The tool names the OpenAI Agents runtime offered its models as handoffs. */
  private readonly handoffs = new Map<string, true>();

  /**
   * @param capacity the bound of each memory.
   * @param principal the principal labels given now are remembered for ({@link labelPrincipal}); `undefined`
   *   outside any action context. Default: none, so every label is everyone's — what the runtime modules never
   *   construct: theirs is the current action context's principal.
   */
  constructor(
    private readonly capacity = DEFAULT_PROVENANCE_CAPACITY,
    private readonly principal: () => string | undefined = () => undefined,
  ) {}

  /** The principal labels given now are remembered for: the current action context's; `undefined` outside any. */
  currentPrincipal(): string | undefined {
    return this.principal();
  }

  /**
   * The labelled items remembered for exactly this text, as the current principal meets it: everyone's, and those
   * remembered for that principal alone. `principal` names another principal than the current one.
   */
  recall(text: string, principal: string | undefined = this.principal()): readonly LabelledContent[] | undefined {
    const key = fingerprintString(text);
    const shared = this.texts.get(key);
    const own = principal === undefined ? undefined : this.own.get(ownKey(principal, key));
    if (own === undefined || shared === undefined) return own ?? shared;
    return [...shared, ...own.filter((item) => !shared.some((known) => sameLabel(known, item)))];
  }

  /**
   * Remembers labelled items for a text: for the current principal alone those that vouch or were said
   * ({@link ProvenanceLabels}), for everyone the others; a text seen under several labels keeps them all. An
   * extracted value's item is kept without its source passages (`withoutPassages`): they are its extraction's own.
   * Answers the labels the principal now recalls for the text. `principal` names another principal than the current
   * one.
   */
  remember(
    text: string,
    items: readonly LabelledContent[],
    principal: string | undefined = this.principal(),
  ): readonly LabelledContent[] {
    const textKey = fingerprintString(text);
    const theirs = (item: LabelledContent) => item.label.trust !== Trust.Untrusted || SAID.has(item.label.source.kind);
    if (principal === undefined) this.add(this.texts, textKey, items);
    else {
      this.add(
        this.texts,
        textKey,
        items.filter((item) => !theirs(item)),
      );
      // A principal's labels for a text carry its untrusted labels with them, those everyone's memory holds now and
      // those given later in that principal's context: flooding everyone's memory (bounded on its own) then cannot
      // leave a trusted label vouching alone for a text seen untrusted in that principal's windows.
      const key = ownKey(principal, textKey);
      const mine = items.filter(theirs);
      if (mine.length > 0 || this.own.has(key))
        this.add(this.own, key, [...mine, ...(this.texts.get(textKey) ?? []).filter(isUntrusted)]);
    }
    return this.recall(text, principal) ?? [];
  }

  private add(memory: Map<string, readonly LabelledContent[]>, key: string, items: readonly LabelledContent[]): void {
    const known = memory.get(key) ?? [];
    const fresh = items.filter((item) => !known.some((k) => sameLabel(k, item))).map(withoutPassages);
    // Nothing to remember leaves no entry: an empty one would say the text has no label at all.
    if (fresh.length > 0) rememberBounded(memory, key, [...known, ...fresh], this.capacity);
  }

  /** Notes tool names a runtime offered its model. */
  offer(name: string): void {
    rememberBounded(this.offered, name, true, this.capacity);
  }

  /** Whether a runtime offered its model a tool of this name. */
  isOffered(name: string): boolean {
    return this.offered.has(name);
  }

  /** Notes a tool name the OpenAI Agents runtime offered its model as a handoff: the SDK itself answers its calls. */
  offerHandoff(name: string): void {
    rememberBounded(this.handoffs, name, true, this.capacity);
  }

  /** Whether the OpenAI Agents runtime offered its model a handoff of this tool name. */
  isHandoff(name: string): boolean {
    return this.handoffs.has(name);
  }

  /** The window a tool call was proposed in. */
  window(thread: string, toolCallId: string): ProvenanceWindow | undefined {
    return this.windows.get(windowKey(thread, toolCallId));
  }

  rememberWindow(thread: string, toolCallId: string, window: ProvenanceWindow): void {
    rememberBounded(this.windows, windowKey(thread, toolCallId), window, this.capacity);
  }

  /** The labels a bound tool's result was given, by the call that returned it, if it returned exactly `text`. */
  result(thread: string, toolCallId: string, text: string): readonly LabelledContent[] | undefined {
    const found = this.results.get(windowKey(thread, toolCallId));
    return found?.text === fingerprintString(text) ? found.items : undefined;
  }

  /** Whether a bound tool's result is kept for the call, whatever its text. */
  hasResult(thread: string, toolCallId: string): boolean {
    return this.results.has(windowKey(thread, toolCallId));
  }

  rememberResult(thread: string, toolCallId: string, text: string, items: readonly LabelledContent[]): void {
    rememberBounded(
      this.results,
      windowKey(thread, toolCallId),
      { text: fingerprintString(text), items },
      this.capacity,
    );
  }

  /**
   * The untrusted answers of the agents that ran inside a tool call (`carried`, ADR 0040), by the call: none forgets
   * what an earlier call of the same id carried.
   */
  carried(thread: string, toolCallId: string): readonly LabelledContent[] {
    return this.carriedByCall.get(windowKey(thread, toolCallId)) ?? [];
  }

  rememberCarried(thread: string, toolCallId: string, items: readonly LabelledContent[]): void {
    const key = windowKey(thread, toolCallId);
    if (items.length === 0) this.carriedByCall.delete(key);
    else rememberBounded(this.carriedByCall, key, items, this.capacity);
  }

  /** The window a provider keeps for `key` (a principal's conversation or response), if this process saw it. */
  keptWindow(key: string): ProvenanceWindow | undefined {
    return this.kept.get(key);
  }

  keepWindow(key: string, window: ProvenanceWindow): void {
    rememberBounded(this.kept, key, window, this.capacity);
  }
}

/** A bound tool's result as a call returned it: the fingerprint of its text, and its labels. */
interface BoundResult {
  readonly text: string;
  readonly items: readonly LabelledContent[];
}

function isUntrusted(item: LabelledContent): boolean {
  return item.label.trust === Trust.Untrusted;
}

function sameLabel(a: LabelledContent, b: LabelledContent): boolean {
  return (
    a.label.fingerprint === b.label.fingerprint &&
    a.label.trust === b.label.trust &&
    a.label.source.toString() === b.label.source.toString()
  );
}

function ownKey(principal: string, textKey: string): string {
  return JSON.stringify([principal, textKey]);
}

function windowKey(thread: string, toolCallId: string): string {
  return JSON.stringify([thread, toolCallId]);
}
