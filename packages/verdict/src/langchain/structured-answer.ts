/** A model call's structured answer (`responseFormat`): `{ structuredResponse, messages }`. */
export interface StructuredAnswer {
  readonly structuredResponse: unknown;
  readonly messages: readonly unknown[];
}

/** Whether a model call answered with a structured answer rather than a message. */
export function isStructuredAnswer(response: unknown): response is StructuredAnswer {
  return (
    typeof response === 'object' &&
    response !== null &&
    'structuredResponse' in response &&
    Array.isArray((response as { messages?: unknown }).messages)
  );
}
