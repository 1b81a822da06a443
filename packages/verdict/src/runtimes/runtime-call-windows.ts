import type { ActionContext } from '../context/action-context.js';
import { Trust } from '../context-release/trust.js';
import { type CallWindowKey, callWindowKey, conversationThread } from '../provenance/call-window-key.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import type { ProvenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import { keylessPrincipal } from '../provenance/label-principal.js';
import { runToolCall } from '../provenance/provenance-scope.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';

/** The thread under which a call's carried answers are kept for its principal in any thread. */
const ANY_THREAD = JSON.stringify(['any-thread']);
/**
 * The tool call a window is remembered for: the runtime's call id and its parsed input (not the tool's name: an AI
 * SDK tool's key in the tool set is the application's, and need not be the name it gave Verdict).
 */
export interface RuntimeToolCall {
  readonly id: string;
  readonly input: unknown;
}

/**
 * Where the provenance tracker of an agent runtime whose tools run outside its model middleware (AI SDK,
 * OpenAI Agents) leaves the window of each tool call the model proposed, and where the bound tool finds it
 * (ADR 0106). A window is kept in the module's {@link ProvenanceLabels} (process memory, bounded) under the
 * principal (actor and tenant) and the conversation it was proposed in — `metadata.conversationId`, or this very
 * action context when the context names no conversation — the call's id and the fingerprint of its arguments: a call
 * resumed after an approval in the same conversation finds it again, and a call whose arguments were changed on
 * the way does not. What is not found is unobserved (the provenance stage treats it as untrusted).
 */
export class RuntimeCallWindows {
  private readonly unnamed = new WeakMap<ActionContext, string>();
  private nextUnnamed = 0;

  constructor(
    private readonly labels: ProvenanceLabels,
    private readonly wiring: Pick<ProvenanceTrackerWiring, 'context' | 'principal'>,
  ) {}

  /**
   * Remembers the window the model proposed `call` in, in `context` (default: the current action context; a
   * stream's parts may be read outside it, so a streaming tracker passes the one its model call ran in).
   */
  remember(call: RuntimeToolCall, window: ProvenanceWindow, context = this.wiring.context()): void {
    const key = this.keyOf(call, context);
    if (key !== undefined) this.labels.rememberWindow(key.thread, key.call, window);
  }

  /**
   * Remembers the labels a bound tool gave the result `text` of the call `toolCallId` (a tracker finds them by the
   * call, not the text). By id alone: a runtime that keeps the conversation on the provider's side sends a result
   * without its call, and the result's text binds it.
   */
  rememberResult(toolCallId: string, text: string, items: readonly LabelledContent[]): void {
    const key = this.keyOf({ id: toolCallId, input: null }, this.wiring.context());
    if (key !== undefined) this.labels.rememberResult(key.thread, key.call, text, items);
  }

  /**
   * The labels of the result of call `toolCallId`, if a bound tool returned exactly `text` for it in this principal's
   * conversation; `null` if a bound tool returned another text for it (the text was changed on its way: a
   * model-input guard's release); `undefined` for any other tool's result, or one the module forgot.
   */
  resultOf(toolCallId: string, text: string): readonly LabelledContent[] | null | undefined {
    const key = this.keyOf({ id: toolCallId, input: null }, this.wiring.context());
    if (key === undefined) return undefined;
    return (
      this.labels.result(key.thread, key.call, text) ?? (this.labels.hasResult(key.thread, key.call) ? null : undefined)
    );
  }

  /**
   * Runs a tool's `call` in the window it was proposed in, for that call only, as the LangChain tracker runs every
   * tool call (ADR 0040): an agent started inside it reads its input as trusted as that window (unobserved, hence
   * untrusted, when no tracker saw the call), and an untracked agent's bound calls inside it are unobserved. What
   * those agents answered from untrusted content, and their tools' results that no tracked model call there read
   * (a run that ends on its tool step, ADR 0211), is kept by the call ({@link carriedOf}): the call's result carries
   * it into the next window, whatever the tool is declared. A call that throws carries an unobserved item: what ran
   * inside it before the error (which the runtime shows the model) is not known.
   */
  async within<T>(call: RuntimeToolCall, fn: () => Promise<T>): Promise<T> {
    const context = this.wiring.context();
    const key = this.keyOf({ id: call.id, input: null }, context);
    const anywhere = this.anyThreadKeyOf(call.id, context);
    const carry = (items: readonly LabelledContent[]) => {
      const tainting = items.filter(({ label }) => label.trust === Trust.Untrusted);
      if (key !== undefined) this.labels.rememberCarried(key.thread, key.call, tainting);
      // Also by the principal alone, never cleared: the result may first be read in a later request of a conversation
      // the action context does not name (its thread is then another).
      if (anywhere !== undefined && tainting.length > 0)
        this.labels.rememberCarried(anywhere.thread, anywhere.call, tainting);
    };
    try {
      const { result, carried } = await runToolCall(this.windowOf(call) ?? ProvenanceWindow.unobserved(), call.id, fn);
      carry(carried);
      return result;
    } catch (error) {
      carry(ProvenanceWindow.unobserved().items);
      throw error;
    }
  }

  /**
   * The untrusted answers of the agents that ran inside the call `toolCallId` of this principal's conversation, run
   * by {@link within}; none for any other call, or one the module forgot. By id alone, as {@link resultOf}.
   */
  carriedOf(toolCallId: string): readonly LabelledContent[] {
    const context = this.wiring.context();
    const key = this.keyOf({ id: toolCallId, input: null }, context);
    const here = key === undefined ? [] : this.labels.carried(key.thread, key.call);
    if (here.length > 0) return here;
    const anywhere = this.anyThreadKeyOf(toolCallId, context);
    return anywhere === undefined ? [] : this.labels.carried(anywhere.thread, anywhere.call);
  }

  /** The window `call` was proposed in, if a tracker saw it in this principal's conversation. */
  windowOf(call: RuntimeToolCall): ProvenanceWindow | undefined {
    return this.placeOf(call)?.window;
  }

  /**
   * Where `call` belongs in the current action context — its principal, conversation (or this very context), id
   * and arguments — or `undefined` outside one or for an empty id. An actor without a stable key is known by its
   * action context alone ({@link keylessPrincipal}). What a bound tool keeps per call is kept under it, so that
   * another principal or run reusing a call id never reads it.
   */
  scopeOf(call: RuntimeToolCall): string | undefined {
    return this.placeOf(call)?.scope;
  }

  /**
   * {@link scopeOf} and {@link windowOf} at once: the call's arguments fingerprinted once. An actor without a stable
   * key has a scope (its action context's) but no window of its own.
   */
  placeOf(
    call: RuntimeToolCall,
  ): { readonly scope: string; readonly window: ProvenanceWindow | undefined } | undefined {
    const context = this.wiring.context();
    if (context === undefined) return undefined;
    const principal = this.wiring.principal(context);
    const key = callWindowKey(principal ?? keylessPrincipal(context), this.threadOf(context), call);
    if (key === undefined) return undefined;
    const window = principal === undefined ? undefined : this.labels.window(key.thread, key.call);
    return { scope: JSON.stringify([key.thread, key.call]), window };
  }

  /** The current action context. */
  current(): ActionContext | undefined {
    return this.wiring.context();
  }

  private keyOf(call: RuntimeToolCall, context: ActionContext | undefined): CallWindowKey | undefined {
    if (context === undefined) return undefined;
    return callWindowKey(this.wiring.principal(context), this.threadOf(context), call);
  }

  /** Where a call's carried answers are kept for its principal in any thread: not for an actor without a stable key. */
  private anyThreadKeyOf(toolCallId: string, context: ActionContext | undefined): CallWindowKey | undefined {
    const principal = context === undefined ? undefined : this.wiring.principal(context);
    return callWindowKey(principal, ANY_THREAD, { id: toolCallId, input: null });
  }

  private threadOf(context: ActionContext): string {
    const conversation = conversationThread(context);
    if (conversation !== undefined) return conversation;
    let own = this.unnamed.get(context);
    if (own === undefined) this.unnamed.set(context, (own = `context-${this.nextUnnamed++}`));
    return JSON.stringify(['context', own]);
  }
}
