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

/**
 * LangChain's OpenAI converters (Chat Completions and Responses) send an answer's tool calls once: from `tool_calls`
 * when it has any, else from the raw copy `additional_kwargs.tool_calls` that an OpenAI answer keeps. Counting both
 * would reserve twice what the call carries and stop a run early against a model budget.
 */
describe('estimateInputTokens counts an answer’s tool calls once', () => {
  const long = 'x'.repeat(4_000);
  const estimate = (...messages: Parameters<typeof estimateInputTokens>[0]['messages']) =>
    estimateInputTokens({ messages, tools: [] });
  const toolCalls = [{ name: 'lookup', args: { q: long }, id: 'c1', type: 'tool_call' as const }];
  // What ChatOpenAI keeps of the provider's answer next to the parsed tool calls.
  const raw = [
    { id: 'c1', type: 'function' as const, function: { name: 'lookup', arguments: JSON.stringify({ q: long }) } },
  ];

  it('attack: an answer carrying its tool calls both ways estimates as one carrying them once', () => {
    const once = new AIMessage({ content: '', tool_calls: toolCalls });
    const both = new AIMessage({ content: '', tool_calls: toolCalls, additional_kwargs: { tool_calls: raw } });
    expect(estimate(both)).toBe(estimate(once));
  });

  it('control: the raw copy counts when it is what is sent (no parsed tool calls), and other provider fields count', () => {
    expect(estimate(new AIMessage({ content: '', additional_kwargs: { tool_calls: raw } }))).toBeGreaterThan(4_000);
    const reasoning = { tool_calls: raw, reasoning: { id: 'rs_1', summary: [{ type: 'summary_text', text: long }] } };
    const withReasoning = new AIMessage({ content: '', tool_calls: toolCalls, additional_kwargs: reasoning });
    expect(estimate(withReasoning)).toBeGreaterThan(
      estimate(new AIMessage({ content: '', tool_calls: toolCalls })) + 4_000,
    );
  });
});
