import type { ActionContext } from '../context/action-context.js';
import type { LabelledContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import type { ProvenanceTrackerWiring } from '../provenance/provenance-tracker-wiring.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import type { ProviderConversation } from './provider-conversation.js';

/** The window of a request that continues nothing the provider keeps: nothing before its own input. */
const NOTHING_HELD = ProvenanceWindow.of([]);

/**
 * The windows of the conversations a provider keeps on its side (ADR 0151), for the AI SDK and OpenAI Agents trackers:
 * a request that continues an earlier response (`previousResponseId`) or a stored conversation (`conversationId`)
 * sends only its new items, while the model reads everything before them too. After each model call the tracker keeps
 * what the model read and answered, under the response's id and the conversation it is part of; a request that
 * continues either reads it before its own input. Kept in the module's {@link ProvenanceLabels} (process memory,
 * bounded) under the principal (actor and tenant): another principal naming the same id never finds it. A request
 * that continues a response or conversation this process did not keep for its principal (another process's, a
 * forgotten one, an actor without a stable key) is unobserved.
 */
export class ProviderConversationWindows {
  constructor(
    private readonly labels: ProvenanceLabels,
    private readonly wiring: Pick<ProvenanceTrackerWiring, 'context' | 'principal'>,
  ) {}

  /**
   * Notes that the stored conversation `conversationId` begins now, empty, for the current principal: its first
   * request reads nothing before its own input. A conversation this process already keeps for the principal keeps
   * its window; outside an action context (or for an actor without a stable key) nothing is noted, and the
   * conversation stays unobserved.
   */
  begin(conversationId: string): void {
    const key = this.keyOf('conversation', conversationId, this.wiring.context());
    if (key !== undefined && this.labels.keptWindow(key) === undefined) this.labels.keepWindow(key, NOTHING_HELD);
  }

  /**
   * What the model read before the request's own input: nothing when it continues nothing; the kept windows of each
   * response and conversation it continues; unobserved when one of them is not kept for this principal.
   */
  held(conversation: ProviderConversation, context: ActionContext | undefined): ProvenanceWindow {
    const references = [
      ...conversation.previousResponses.map((id) => this.keyOf('response', id, context)),
      ...conversation.conversations.map((id) => this.keyOf('conversation', id, context)),
    ];
    if (references.length === 0) return NOTHING_HELD;
    const items: LabelledContent[] = [];
    for (const key of references) {
      const kept = key === undefined ? undefined : this.labels.keptWindow(key);
      if (kept === undefined || !kept.observed) return ProvenanceWindow.unobserved();
      items.push(...kept.items);
    }
    return ProvenanceWindow.of(items);
  }

  /**
   * Keeps `window` — what the model read and answered in one call — under the response's id (`responseId`, when the
   * provider gave one) and each stored conversation the request was part of.
   */
  keep(
    conversation: ProviderConversation,
    responseId: string | undefined,
    window: ProvenanceWindow,
    context: ActionContext | undefined,
  ): void {
    const keys = [
      ...conversation.conversations.map((id) => this.keyOf('conversation', id, context)),
      responseId === undefined || responseId === '' ? undefined : this.keyOf('response', responseId, context),
    ];
    for (const key of keys) if (key !== undefined) this.labels.keepWindow(key, window);
  }

  private keyOf(kind: 'response' | 'conversation', id: string, context: ActionContext | undefined): string | undefined {
    const principal = context === undefined ? undefined : this.wiring.principal(context);
    return principal === undefined ? undefined : JSON.stringify([principal, kind, id]);
  }
}
