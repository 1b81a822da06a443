import { describe, expect, it } from '@jest/globals';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
  Runner,
  Usage,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import {
  type ActionContext,
  MissingModelBudgetScopeError,
  ModelBudgetExceededError,
  UnpricedModelError,
} from '@verdict/nestjs';
import { agentsModelBudget } from '@verdict/nestjs/openai-agents';
import { z } from 'zod';
import { bootPricedModelBudget, type PricedModelBudget } from '../budgets/priced-model-budget.fixture.js';
import { alice, bob } from '../pipeline/documents.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/** Every call is estimated at 60 input tokens, and the agent allows 40 output tokens: 100 reserved. */
const MAX_OUTPUT = 40;

type Reported = { input: number; output: number } | null;
type Turn = { readonly call: string } | { readonly text: string };

/** A scripted model (outside the project) answering `turns` in order, each reporting `usage` (null: none). */
class UsageReportingModel implements Model {
  readonly requests: ModelRequest[] = [];
  private next = 0;

  constructor(
    private readonly turns: readonly Turn[],
    private readonly usage: Reported,
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return { usage: this.reported(), output: this.output() };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    this.requests.push(request);
    const output = this.output();
    const { inputTokens, outputTokens, totalTokens } = this.reported();
    yield {
      type: 'response_done',
      response: { id: `r${this.next}`, usage: { inputTokens, outputTokens, totalTokens }, output },
    } as StreamEvent;
  }

  /** The SDK's own models report zeros when the provider reported no usage. */
  private reported(): Usage {
    return this.usage === null
      ? new Usage({ requests: 1 })
      : new Usage({ requests: 1, inputTokens: this.usage.input, outputTokens: this.usage.output });
  }

  private output(): ModelResponse['output'] {
    const turn = this.turns[this.next++];
    if (turn === undefined) throw new Error('the scripted model has no turn left');
    if ('call' in turn)
      return [{ type: 'function_call', callId: turn.call, name: 'ping', arguments: '{}', status: 'completed' }];
    return [
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] },
    ];
  }
}

const ping = tool({ name: 'ping', description: 'Ping', parameters: z.object({}), execute: () => 'pong' });

async function setup(budget: PricedModelBudget, maxOutputTokens: number | null = MAX_OUTPUT) {
  const { contexts, gate, remaining } = await bootPricedModelBudget(budget);
  const modelBudget = agentsModelBudget(gate, contexts, { estimateInputTokens: () => 60 });
  const agentOf = (model: Model) =>
    new Agent({
      name: 'Support',
      instructions: 'Help.',
      model,
      tools: [ping],
      modelSettings: maxOutputTokens === null ? {} : { maxTokens: maxOutputTokens },
    });
  /** One run as `who` of a model named `name` answering `turns`, reporting `usage` each time. */
  const run = (who: ActionContext, usage: Reported, turns: Turn[] = [{ text: 'Answered.' }], name = 'mock-small') => {
    const inner = new UsageReportingModel(turns, usage);
    const agent = agentOf(modelBudget.model(inner, name));
    const result = contexts.run(who, () => new Runner().run(agent, 'Hello'));
    return { inner, result };
  };
  return { contexts, modelBudget, agentOf, run, remaining };
}

/** The error a run rejected with, and those it wraps. */
async function failureOf(result: Promise<unknown>): Promise<unknown[]> {
  const error = await result.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const chain: unknown[] = [];
  for (let at = error; typeof at === 'object' && at !== null; at = (at as { cause?: unknown }).cause) chain.push(at);
  return chain;
}

describe('model budgets around OpenAI Agents models, in a real runner', () => {
  it('control: a run within budget completes, and only the reported usage of each call is spent', async () => {
    const { run, remaining } = await setup({ limit: 1_000 });
    const { result, inner } = run(alice, { input: 20, output: 5 }, [{ call: 'call_1' }, { text: 'Answered.' }]);
    expect((await result).finalOutput).toBe('Answered.');
    expect(inner.requests).toHaveLength(2);
    expect(await remaining(alice)).toBe(1_000 - 2 * 25);
  });

  it('attack: a call without room stops the run before the model is called; another actor is unaffected', async () => {
    const { run, remaining } = await setup({ limit: 150 });
    expect((await run(alice, { input: 60, output: 40 }).result).finalOutput).toBe('Answered.');
    const refused = run(alice, { input: 1, output: 1 });
    // The run rejects with Verdict's typed error itself (the SDK does not wrap a model's error).
    await expect(refused.result).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(refused.inner.requests).toHaveLength(0);
    expect(await remaining(alice)).toBe(50);
    expect((await run(bob, { input: 60, output: 40 }).result).finalOutput).toBe('Answered.');
  });

  it('stops a run between two model calls once its first call used the room', async () => {
    const { run, remaining } = await setup({ limit: 180 });
    const { result, inner } = run(alice, { input: 90, output: 10 }, [{ call: 'call_1' }, { text: 'Answered.' }]);
    expect((await failureOf(result)).some((error) => error instanceof ModelBudgetExceededError)).toBe(true);
    expect(inner.requests).toHaveLength(1);
    expect(await remaining(alice)).toBe(80);
  });

  it('keeps the estimate when the model reports no usage (zero tokens)', async () => {
    const { run, remaining } = await setup({ limit: 1_000 });
    await run(alice, null).result;
    expect(await remaining(alice)).toBe(900);
  });

  it('refuses a model missing from the price table under a cost budget, before calling it', async () => {
    const { run, remaining } = await setup({ limit: 1_000, measure: 'cost' });
    const refused = run(alice, { input: 1, output: 1 }, undefined, 'mock-large');
    expect((await failureOf(refused.result)).some((error) => error instanceof UnpricedModelError)).toBe(true);
    expect(refused.inner.requests).toHaveLength(0);
    expect(await remaining(alice)).toBe(1_000);
    // Control: the priced model runs, at its price.
    expect((await run(alice, { input: 3, output: 2 }).result).finalOutput).toBe('Answered.');
    expect(await remaining(alice)).toBe(995);
  });

  it('refuses a call whose context has no key for the budget’s scope; one with it runs', async () => {
    const { run, remaining } = await setup({ limit: 1_000, per: 'conversation' });
    const refused = run(alice, { input: 1, output: 1 });
    expect((await failureOf(refused.result)).some((error) => error instanceof MissingModelBudgetScopeError)).toBe(true);
    expect(refused.inner.requests).toHaveLength(0);
    const inConversation = { ...alice, metadata: { conversationId: 'c-1' } };
    expect((await run(inConversation, { input: 4, output: 1 }).result).finalOutput).toBe('Answered.');
    expect(await remaining(inConversation)).toBe(995);
  });

  it('counts a model the agent names through a wrapped ModelProvider, under that name; an unnamed default is unpriced', async () => {
    const { contexts, modelBudget, remaining } = await setup({ limit: 1_000, measure: 'cost' });
    const models: Record<string, UsageReportingModel> = {
      'mock-small': new UsageReportingModel([{ text: 'Answered.' }], { input: 7, output: 3 }),
      'mock-large': new UsageReportingModel([{ text: 'Answered.' }], { input: 7, output: 3 }),
    };
    // The provider's default (for an agent naming no model) is the small model.
    const provider = { getModel: (name?: string) => models[name || 'mock-small']! };
    const runner = new Runner({ modelProvider: modelBudget.provider(provider) });
    const agent = (model: string) => new Agent({ name: 'Support', model, modelSettings: { maxTokens: MAX_OUTPUT } });
    const answered = await contexts.run(alice, () => runner.run(agent('mock-small'), 'Hello'));
    expect(answered.finalOutput).toBe('Answered.');
    expect(await remaining(alice)).toBe(990);
    const refused = contexts.run(alice, () => runner.run(agent('mock-large'), 'Hello'));
    expect((await failureOf(refused)).some((error) => error instanceof UnpricedModelError)).toBe(true);
    expect(models['mock-large']!.requests).toHaveLength(0);
    // An agent naming no model gets the provider's default, which the budget cannot price: refused, not free.
    const unnamed = new Agent({ name: 'Default', modelSettings: { maxTokens: MAX_OUTPUT } });
    const defaulted = contexts.run(alice, () => runner.run(unnamed, 'Hello'));
    expect((await failureOf(defaulted)).some((error) => error instanceof UnpricedModelError)).toBe(true);
    expect(models['mock-small']!.requests).toHaveLength(1);
    expect(await remaining(alice)).toBe(990);
  });

  it('settles a streamed call at its response_done; without usage the estimate is kept', async () => {
    const { contexts, agentOf, modelBudget, remaining } = await setup({ limit: 1_000 });
    const streamAs = async (who: ActionContext, usage: Reported) => {
      const agent = agentOf(modelBudget.model(new UsageReportingModel([{ text: 'Streamed.' }], usage), 'mock-small'));
      const result = await contexts.run(who, () => new Runner().run(agent, 'Hello', { stream: true }));
      await result.completed;
      return result.finalOutput;
    };
    expect(await streamAs(alice, { input: 10, output: 3 })).toBe('Streamed.');
    expect(await remaining(alice)).toBe(987);
    await streamAs(bob, null);
    expect(await remaining(bob)).toBe(900);
  });

  it('stops a streamed run between two model calls: reading it throws ModelBudgetExceededError, `completed` rejects with it', async () => {
    const { contexts, agentOf, modelBudget, remaining } = await setup({ limit: 180 });
    const inner = new UsageReportingModel([{ call: 'call_1' }, { text: 'Answered.' }], { input: 90, output: 10 });
    const agent = agentOf(modelBudget.model(inner, 'mock-small'));
    const result = await contexts.run(alice, () => new Runner().run(agent, 'Hello', { stream: true }));
    const reading = (async () => {
      for await (const event of result) void event;
    })();
    await expect(reading).rejects.toBeInstanceOf(ModelBudgetExceededError);
    await expect(result.completed).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(result.finalOutput).toBeUndefined();
    expect(inner.requests).toHaveLength(1);
    expect(await remaining(alice)).toBe(80);
  });

  it('refuses a call when neither the agent (maxTokens) nor modelBudgets declares a maximum output', async () => {
    const { run } = await setup({ limit: 1_000 }, null);
    const refused = run(alice, { input: 1, output: 1 });
    const chain = await failureOf(refused.result);
    expect(chain.some((error) => error instanceof Error && /declares no maximum output/.test(error.message))).toBe(
      true,
    );
    expect(refused.inner.requests).toHaveLength(0);
  });
});
