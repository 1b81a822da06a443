import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelRetryAdvice,
  type ModelSettings,
  Runner,
  setTracingDisabled,
} from '@openai/agents';
import type { TestingModule } from '@nestjs/testing';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import {
  AgentsModelInputGuards,
  AgentsProvenanceTrackers,
  VerdictAgentsModule,
  VerdictAgentsTools,
  agentsModelBudget,
} from '@verdict/nestjs/openai-agents';
import { bootPricedModelBudget } from '../budgets/priced-model-budget.fixture.js';
import { alice } from '../pipeline/documents.fixture.js';
import { OWN_IBAN, alice as payingAlice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local, readAndPay } from '../provenance/payments-script.fixture.js';
import { ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const INSTRUCTIONS = 'Help the customer with products and payments.';

/**
 * A provider's model (outside the project) that says two things of itself besides its calls: a prompt may choose
 * it, and its advice on a failed call, read from the model itself (`this`). Its first call fails, as an overloaded
 * provider's does.
 */
class AdvisingModel extends ScriptedAgentsModel {
  readonly supportsPromptModelSelection = true;
  readonly advice: ModelRetryAdvice = { suggested: true, reason: 'the provider was overloaded' };
  readonly overloaded = new Error('503: the provider is overloaded');
  attempts = 0;

  override async getResponse(request: ModelRequest): Promise<ModelResponse> {
    if (++this.attempts === 1) throw this.overloaded;
    return super.getResponse(request);
  }

  getRetryAdvice(): ModelRetryAdvice {
    return this.advice;
  }
}

/** The runner retries a failed model call once, and only when the model's provider advises it (no delay). */
const RETRY_ON_ADVICE: ModelSettings = {
  retry: {
    maxRetries: 1,
    policy: ({ providerAdvice }) => (providerAdvice?.suggested === true ? { retry: true, delayMs: 0 } : false),
  },
};

/** The wrapper says what `inner` says of itself, and its retry advice is the inner model's own. */
async function expectInnerSelfDescription(wrapped: Model, inner: AdvisingModel) {
  expect(wrapped.supportsPromptModelSelection).toBe(true);
  const advised = await wrapped.getRetryAdvice?.({
    request: {} as ModelRequest,
    error: inner.overloaded,
    stream: false,
    attempt: 1,
  });
  expect(advised).toBe(inner.advice);
}

/** A wrapper of a model that says nothing of itself adds nothing either. */
function expectNoSelfDescription(wrapped: Model) {
  expect('supportsPromptModelSelection' in wrapped).toBe(false);
  expect('getRetryAdvice' in wrapped).toBe(false);
}

describe('the model budget keeps what the inner OpenAI Agents model says of itself', () => {
  async function setup() {
    const { contexts, gate, remaining } = await bootPricedModelBudget({ limit: 1_000 });
    // Every call is estimated at 60 input tokens and allows 40 output tokens: 100 held; the scripted models report
    // zero tokens, so each call keeps its estimate.
    const budget = agentsModelBudget(gate, contexts, { estimateInputTokens: () => 60 });
    const run = (model: Model) =>
      contexts.run(alice, () =>
        new Runner().run(
          new Agent({ name: 'Support', model, modelSettings: { maxTokens: 40, ...RETRY_ON_ADVICE } }),
          'Hello',
        ),
      );
    return { wrap: (inner: Model) => budget.model(inner, 'mock-small'), run, remaining };
  }

  it('keeps its prompt model selection and retry advice: the run is retried on the advice, each attempt counted', async () => {
    const { wrap, run, remaining } = await setup();
    const inner = new AdvisingModel([{ text: 'Answered.' }]);
    const wrapped = wrap(inner);
    await expectInnerSelfDescription(wrapped, inner);
    expect((await run(wrapped)).finalOutput).toBe('Answered.');
    expect(inner.attempts).toBe(2);
    expect(await remaining(alice)).toBe(800);
  });

  it('control: a model without them gives a wrapper without them, whose calls are still counted', async () => {
    const { wrap, run, remaining } = await setup();
    const inner = new ScriptedAgentsModel([{ text: 'Answered.' }]);
    const wrapped = wrap(inner);
    expectNoSelfDescription(wrapped);
    expect((await run(wrapped)).finalOutput).toBe('Answered.');
    expect(await remaining(alice)).toBe(900);
  });
});

describe('the model-input guard and the provenance tracker keep what the inner OpenAI Agents model says of itself', () => {
  async function setup() {
    const fixture = await paymentsFixture({
      payments: TRUSTED_ONLY,
      releasePolicies: [catalogPolicy],
      imports: [VerdictAgentsModule],
    });
    booted.push(fixture.moduleRef);
    const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
    const tools = [
      agentsTools.bound('products.view', { name: 'view_product' }),
      agentsTools.bound('payments.send', { name: 'send_payment' }),
    ];
    const guard = fixture.moduleRef
      .get(AgentsModelInputGuards, { strict: false })
      .forDestination(local, { toolResults: {}, systemPrompts: [INSTRUCTIONS] });
    const tracker = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
    const contexts = fixture.moduleRef.get(ActionContextStore);
    /** One run as the customer of an agent with both tools and `instructions`, on `model`. */
    const run = (model: Model, input: string, instructions = INSTRUCTIONS) =>
      contexts.run(payingAlice, () =>
        new Runner().run(
          new Agent({ name: 'Support', instructions, model, tools, modelSettings: RETRY_ON_ADVICE }),
          input,
        ),
      );
    return { ...fixture, guard, tracker, run };
  }

  it("the guard keeps its prompt model selection and retry advice: the run is retried on the provider's advice", async () => {
    const { guard, run } = await setup();
    const inner = new AdvisingModel([{ text: 'Answered.' }]);
    const wrapped = guard.model(inner);
    await expectInnerSelfDescription(wrapped, inner);
    expect((await run(wrapped, 'Hello')).finalOutput).toBe('Answered.');
    expect(inner.attempts).toBe(2);
  });

  it('control: the guard of a model without them has neither, and still refuses instructions it was not given', async () => {
    const { guard, run } = await setup();
    const inner = new ScriptedAgentsModel([{ text: 'Answered.' }]);
    const wrapped = guard.model(inner);
    expectNoSelfDescription(wrapped);
    await expect(run(wrapped, 'Hello', 'Another prompt.')).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(inner.requests).toHaveLength(0);
    expect((await run(wrapped, 'Hello')).finalOutput).toBe('Answered.');
  });

  it("the tracker keeps its prompt model selection and retry advice: the run is retried on the provider's advice", async () => {
    const { tracker, run, payments } = await setup();
    const inner = new AdvisingModel(readAndPay(OWN_IBAN));
    const wrapped = tracker.model(inner);
    await expectInnerSelfDescription(wrapped, inner);
    await run(wrapped, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(inner.attempts).toBe(4);
    // The retried call was tracked: the payment to the IBAN the customer typed runs.
    expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it('control: the tracker of a model without them has neither, and still tracks its calls', async () => {
    const { tracker, run, payments, provenanceDecisions } = await setup();
    const inner = new ScriptedAgentsModel(readAndPay(OWN_IBAN));
    const wrapped = tracker.model(inner);
    expectNoSelfDescription(wrapped);
    await run(wrapped, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
    expect(provenanceDecisions()[0]).toMatchObject({ disposition: 'permit' });
  });
});
