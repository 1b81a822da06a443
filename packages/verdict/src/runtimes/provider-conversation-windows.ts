import type { ActionContext } from '../context/action-context.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import type { ProvenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { ProviderConversation } from './provider-conversation.js';

/** The window of a request that continues nothing the provider keeps: nothing before its own input. */
const NOTHING_HELD = ProvenanceWindow.of([]);

/**
 * The windows of the responses a provider keeps on its side (ADR 0151), for the AI SDK and OpenAI Agents trackers: a
 * request that continues an earlier response (`previousResponseId`) sends only its new items, while the model reads
 * everything before them too. After each model call the tracker keeps what the model read and answered under the
 * response's id — a response never changes once written — and a request that continues it reads it before its own
 * input. Kept in the module's {@link ProvenanceLabels} (process memory, bounded) under the principal (actor and
 * tenant): another principal naming the same id never finds it. A request that continues a response this process did
 * not keep for its principal (another process's, a forgotten one, an actor without a stable key) is unobserved, and so
 * is a request in a conversation the provider stores (`conversationId`): other requests — another replica's, a
 * concurrent one's, another actor's — add to it unseen, so no window this process kept can say what it holds.
 */
export class ProviderConversationWindows {
  constructor(
    private readonly labels: ProvenanceLabels,
    private readonly wiring: Pick<ProvenanceTrackerWiring, 'context' | 'principal'>,
  ) {}

  /**
   * What the model read before the request's own input: nothing when it continues nothing; the kept windows of each
   * response it continues; unobserved when one of them is not kept for this principal, or when it is part of a stored
   * conversation.
   */
  held(conversation: ProviderConversation, context: ActionContext | undefined): ProvenanceWindow {
    if (conversation.conversations.length > 0) return ProvenanceWindow.unobserved();
    if (conversation.previousResponses.length === 0) return NOTHING_HELD;
    const items: LabelledContent[] = [];
    for (const id of conversation.previousResponses) {
      const key = this.keyOf(id, context);
      const kept = key === undefined ? undefined : this.labels.keptWindow(key);
      if (kept === undefined || !kept.observed) return ProvenanceWindow.unobserved();
      items.push(...kept.items);
    }
    return ProvenanceWindow.of(items);
  }

  /** Keeps `window` — what the model read and answered in one call — under the response's id, when the provider gave one. */
  keep(responseId: string | undefined, window: ProvenanceWindow, context: ActionContext | undefined): void {
    const key = responseId === undefined || responseId === '' ? undefined : this.keyOf(responseId, context);
    if (key !== undefined) this.labels.keepWindow(key, window);
  }

  private keyOf(id: string, context: ActionContext | undefined): string | undefined {
    const principal = context === undefined ? undefined : this.wiring.principal(context);
    return principal === undefined ? undefined : JSON.stringify([principal, 'response', id]);
  }
}
