import { rememberBounded } from '../shared/remember-bounded.js';

/**
 * What a model request continues on the provider's side (ADR 0151): the earlier responses it follows (OpenAI's
 * `previousResponseId`) and the conversations the provider stores (`conversationId`, `conversation`). The provider
 * holds what those saw, and the request sends only what is new.
 */
export interface ProviderConversation {
  /** The ids of the responses the request continues. */
  readonly previousResponses: readonly string[];
  /** The ids of the stored conversations the request is part of. */
  readonly conversations: readonly string[];
}

/** The option names, in either spelling, that name a response to continue. */
const PREVIOUS_RESPONSE = ['previousResponseId', 'previous_response_id'];
/** The option names, in either spelling, that name a stored conversation. */
const CONVERSATION = ['conversationId', 'conversation_id', 'conversation'];

/**
 * The conversation a request continues, read from every place a runtime lets the application name it (`sources`: the
 * request itself, its provider options or provider data, whatever the provider): each option above with a value. An
 * id that is not a string (nor an object with a string `id`, as OpenAI takes a conversation) is read as its JSON, which
 * names no conversation this process kept: the request is then unobserved.
 *
 * @example providerConversationOf([request, request.modelSettings.providerData]) // { previousResponses: ['resp_1'], conversations: [] }
 */
export function providerConversationOf(sources: readonly unknown[]): ProviderConversation {
  const records = sources.filter((source): source is Record<string, unknown> => isRecord(source));
  return {
    previousResponses: records.flatMap((record) => idsOf(record, PREVIOUS_RESPONSE)),
    conversations: records.flatMap((record) => idsOf(record, CONVERSATION)),
  };
}

function idsOf(record: Record<string, unknown>, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const value = record[name];
    if (value === undefined || value === null || value === '') return [];
    if (typeof value === 'string') return [value];
    const id = isRecord(value) ? value['id'] : undefined;
    return [typeof id === 'string' ? id : (JSON.stringify(value) ?? String(value))];
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a request continues nothing on the provider's side: its input (or prompt) is the whole conversation. */
export function continuesNothing({ previousResponses, conversations }: ProviderConversation): boolean {
  return previousResponses.length === 0 && conversations.length === 0;
}

/**
 * What an AI SDK model call continues on the provider's side: any provider's options (`providerOptions.openai`, …)
 * naming an earlier response or a stored conversation.
 */
export function providerOptionsConversation(providerOptions: unknown): ProviderConversation {
  return providerConversationOf(
    typeof providerOptions === 'object' && providerOptions !== null ? Object.values(providerOptions) : [],
  );
}

/** A tool call a result in one request may answer: its tool's name, and whether a result of the request answered it. */
export interface PendingCall<Name> {
  readonly name: Name;
  answered: boolean;
}

/** How many responses and stored conversations a {@link KeptCalls} keeps the calls of, by default. */
const KEPT_CALLS = 1_000;

/**
 * The tool calls the model proposed in the responses a model-input guard passed, for the AI SDK and OpenAI Agents guards
 * (ADR 0151): a request that continues a response or a stored conversation the provider keeps (`previousResponseId`,
 * `conversationId`, `conversation`) sends the results alone, and answers the calls kept here. Kept in process memory,
 * bounded (`capacity` responses and conversations, the oldest forgotten first), each under a scope (what the guard binds
 * its seals to: the principal and conversation) and the response's or conversation's id.
 * - Under a response's id: the calls that response proposed. A response never changes once written, and a request
 *   may continue any response (a fork), so its calls stay answerable there (once per request).
 * - Under a stored conversation's id: only the calls of the most recent response this guard passed in it — replaced
 *   by each later response, forgotten after one that proposed none. A request in a stored conversation answers the
 *   calls of the response before it: the Agents runner sends each response's results in the request that follows it,
 *   never again; an AI SDK generation carries its own steps' calls in its prompt, and a generation sending results
 *   alone answers the calls its last response left (a tool without `execute`, an approval). A call an earlier
 *   response proposed was answered already: its result, sent again, is refused — and what a conversation keeps does
 *   not grow with its length (one response's calls, replaced, not merged).
 *
 * @example
 * kept.keep(scope, conversation, response.id, new Map([['call_1', 'lookup_order']]));
 * const pending = kept.pending(scope, nextConversation); // Map { 'call_1' => { name: 'lookup_order', answered: false } }
 */
export class KeptCalls<Name> {
  private readonly kept = new Map<string, ReadonlyMap<string, Name>>();

  constructor(private readonly capacity = KEPT_CALLS) {}

  /**
   * Keeps `calls` (call id → tool name) — those the model proposed in the response `responseId`, made in a request
   * that continued `continued` — under the response's id (when it proposed any) and as the latest calls of each stored
   * conversation the request is part of.
   */
  keep(
    scope: string | null,
    continued: ProviderConversation,
    responseId: string | undefined,
    calls: ReadonlyMap<string, Name>,
  ): void {
    if (calls.size > 0 && responseId !== undefined && responseId !== '')
      rememberBounded(this.kept, keyOf(scope, 'response', responseId), calls, this.capacity);
    for (const id of continued.conversations) {
      const key = keyOf(scope, 'conversation', id);
      if (calls.size > 0) rememberBounded(this.kept, key, calls, this.capacity);
      else this.kept.delete(key);
    }
  }

  /** The calls a request continuing `continued` may answer, as kept under `scope`: none answered yet. */
  pending(scope: string | null, continued: ProviderConversation): Map<string, PendingCall<Name>> {
    const pending = new Map<string, PendingCall<Name>>();
    const keys = [
      ...continued.previousResponses.map((id) => keyOf(scope, 'response', id)),
      ...continued.conversations.map((id) => keyOf(scope, 'conversation', id)),
    ];
    for (const key of keys)
      for (const [callId, name] of this.kept.get(key) ?? []) pending.set(callId, { name, answered: false });
    return pending;
  }
}

function keyOf(scope: string | null, kind: 'response' | 'conversation', id: string): string {
  return JSON.stringify([scope, kind, id]);
}
