import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { estimateInputTokens } from './model-input-tokens.js';

/**
 * The default estimate errs high for what a call carries (docs/budgets.md): every field a message sends counts, not
 * only its content. A long name, tool-call id or provider field (a client-supplied history) must not slip past it.
 */
describe('estimateInputTokens counts every field a message sends', () => {
  const long = 'x'.repeat(4_000);
  const estimate = (...messages: Parameters<typeof estimateInputTokens>[0]['messages']) =>
    estimateInputTokens({ messages, tools: [] });

  it.each([
    ['a tool result’s call id', new ToolMessage({ content: 'ok', tool_call_id: long })],
    ['a message’s name', new HumanMessage({ content: 'hi', name: long })],
    ['a provider field (a reasoning item)', new AIMessage({ content: '', additional_kwargs: { reasoning: long } })],
  ])('attack: %s of 4,000 bytes is counted', (_field, message) => {
    expect(estimate(message)).toBeGreaterThan(4_000);
  });

  it('control: a short message is estimated near its size, and an answer’s tool calls count', () => {
    expect(estimate(new HumanMessage('What is in my plan?'))).toBeLessThan(100);
    const call = new AIMessage({ content: '', tool_calls: [{ name: 'lookup', args: { q: long }, id: 'c1' }] });
    expect(estimate(call)).toBeGreaterThan(4_000);
  });
});
