/**
 * Why a provider call failed, as far as the trial is concerned. Recorded per trial instead of the
 * message (which may quote the prompt); a trial with a provider error is never a pass or a failure.
 */
export const ProviderErrorClass = {
  /** The client gave up waiting (its timeout). */
  Timeout: 'timeout',
  /** HTTP 5xx after the client's retries. */
  ServerError: 'server_error',
  /** HTTP 429 after the client's retries. */
  RateLimit: 'rate_limit',
  /** Any other HTTP 4xx (authentication, unknown model, bad request). */
  ClientError: 'client_error',
  /** The endpoint could not be reached. */
  Connection: 'connection',
  /** The model emitted a tool call whose arguments are not valid JSON (LangChain's `invalid_tool_calls`). */
  MalformedToolCall: 'malformed_tool_call',
} as const;

export type ProviderErrorClass = (typeof ProviderErrorClass)[keyof typeof ProviderErrorClass];

const CONNECTION_ERRORS = new Set(['APIConnectionError', 'FetchError']);
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The provider error class of a thrown value, or `null` when it is not a provider error (an application
 * fault or a harness bug). Reads the OpenAI and Anthropic SDK errors (and LangChain's wrappers of them) and the
 * Vercel AI SDK's (`APICallError.statusCode`, `RetryError.lastError`): their status, `lc_error_code`, class and
 * `name` — never the message.
 */
export function providerErrorClassOf(thrown: unknown): ProviderErrorClass | null {
  if (typeof thrown !== 'object' || thrown === null) return null;
  const error = thrown as {
    name?: unknown;
    status?: unknown;
    lc_error_code?: unknown;
    code?: unknown;
    cause?: unknown;
    statusCode?: unknown;
    lastError?: unknown;
  };
  const className = (thrown as { constructor?: { name?: unknown } }).constructor?.name;
  if (error.status === undefined && typeof error.statusCode === 'number')
    return providerErrorClassOf({ status: error.statusCode });
  if (error.name === 'AI_RetryError' && error.lastError !== undefined) return providerErrorClassOf(error.lastError);
  if (error.name === 'TimeoutError' || className === 'APIConnectionTimeoutError') return ProviderErrorClass.Timeout;
  if (error.lc_error_code === 'MODEL_RATE_LIMIT' || error.status === 429) return ProviderErrorClass.RateLimit;
  if (typeof error.status === 'number' && error.status >= 500) return ProviderErrorClass.ServerError;
  if (typeof error.status === 'number' && error.status >= 400) return ProviderErrorClass.ClientError;
  if (
    (typeof className === 'string' && CONNECTION_ERRORS.has(className)) ||
    (typeof error.code === 'string' && CONNECTION_CODES.has(error.code))
  )
    return ProviderErrorClass.Connection;
  return error.cause === undefined || error.cause === thrown ? null : providerErrorClassOf(error.cause);
}
