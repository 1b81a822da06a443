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
