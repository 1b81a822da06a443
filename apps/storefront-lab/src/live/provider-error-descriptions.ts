import { ProviderErrorClass } from '@verdict/evaluation/live';

/** What each provider error class means, for the page (never the provider's own message). */
export const PROVIDER_ERRORS: Record<ProviderErrorClass, string> = {
  [ProviderErrorClass.Timeout]: 'the client gave up waiting (its timeout)',
  [ProviderErrorClass.ServerError]: "the provider answered 5xx after the client's retries",
  [ProviderErrorClass.RateLimit]: "the provider answered 429 (rate limit) after the client's retries",
  [ProviderErrorClass.ClientError]: 'the provider refused the request (4xx: key, model id or request)',
  [ProviderErrorClass.Connection]: 'the endpoint could not be reached',
  [ProviderErrorClass.MalformedToolCall]: 'the model proposed a tool call whose arguments are not JSON',
};
