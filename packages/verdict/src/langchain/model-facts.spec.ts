import { describe, expect, it } from '@jest/globals';
import { modelFactsOf } from './model-facts.js';

describe('modelFactsOf reads the maximum a model declares', () => {
  const model = (ls: object, request: () => object) => ({ getLsParams: () => ls, invocationParams: request });

  it('reads the maximum the request carries when LangChain reports none (a reasoning model, the Responses API)', () => {
    expect(modelFactsOf(model({}, () => ({ max_completion_tokens: 8000 }))).maxOutputTokens).toBe(8000);
    expect(modelFactsOf(model({}, () => ({ max_output_tokens: 4000 }))).maxOutputTokens).toBe(4000);
  });

  it('control: a model whose request parameters need call options (it throws) declares nothing, as before', () => {
    const facts = modelFactsOf(
      model({ ls_model_name: 'm' }, () => {
        throw new Error('options required');
      }),
    );
    expect(facts).toEqual({ model: 'm', maxOutputTokens: undefined });
  });

  it('control: `ls_max_tokens` wins, and `-1` declares nothing', () => {
    expect(modelFactsOf(model({ ls_max_tokens: 100 }, () => ({ max_tokens: 9 }))).maxOutputTokens).toBe(100);
    expect(modelFactsOf(model({}, () => ({ max_tokens: -1 }))).maxOutputTokens).toBeUndefined();
  });
});
