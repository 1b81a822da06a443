import type { Model } from '@openai/agents';

/**
 * A model that answers through `calls` and otherwise is `inner`: what `inner` says of itself besides its two calls
 * (whether a prompt may choose the model, the retry advice of its provider) reaches the runner unchanged, so a
 * Verdict wrapper never turns those off.
 */
export function wrappedModel(inner: Model, calls: Pick<Model, 'getResponse' | 'getStreamedResponse'>): Model {
  const { supportsPromptModelSelection, getRetryAdvice } = inner;
  return {
    ...(supportsPromptModelSelection === undefined ? {} : { supportsPromptModelSelection }),
    ...(getRetryAdvice === undefined ? {} : { getRetryAdvice: getRetryAdvice.bind(inner) }),
    getResponse: calls.getResponse,
    getStreamedResponse: calls.getStreamedResponse,
  };
}
