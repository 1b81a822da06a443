import { describe, expect, it } from '@jest/globals';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  type RunResult,
  setTracingDisabled,
} from '@openai/agents';
import { type ActionContext, ActionContextStore, type ProvenancePolicy } from '@verdict/nestjs';
import { AgentsProvenanceTrackers, VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { VIEW, pay } from '../provenance/payments-script.fixture.js';
import { type AgentsTurn, ScriptedAgentsModel } from './scripted-agents-model.js';

// A conversation the provider keeps (OpenAI Agents, ADR 0151): with `previousResponseId` or `conversationId` the runner
// sends only the new items, while the model reads the whole conversation.

setTracingDisabled(true);

/** Nothing untrusted in the window, and the negative rule. */
const CLEAN_ONLY: ProvenancePolicy = { untrustedContext: 'deny', arguments: { recipient: 'trusted_only' } };
/** A recipient must be derived from trusted content (the positive rule). */
const DERIVED: ProvenancePolicy = { untrustedContext: 'allow', arguments: { recipient: { derivedFrom: 'trusted' } } };
/** Another actor of Alice's tenant, naming her conversation id. */
const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };

/** A scripted model whose responses carry ids, as the Responses API's do (`<prefix>_1`, `<prefix>_2`, …). */
class RespondingModel implements Model {
  private readonly scripted: ScriptedAgentsModel;
  private answered = 0;

  constructor(
    turns: AgentsTurn[],
    private readonly prefix: string,
  ) {
    this.scripted = new ScriptedAgentsModel(turns);
  }

  /** What the runner sent the model, call by call. */
  get requests(): readonly ModelRequest[] {
    return this.scripted.requests;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const response = await this.scripted.getResponse(request);
    return { ...response, responseId: `${this.prefix}_${++this.answered}` };
  }

  getStreamedResponse(): AsyncIterable<never> {
    return this.scripted.getStreamedResponse();
  }
}

async function setup(payments: ProvenancePolicy) {
  const fixture = await paymentsFixture({ payments, imports: [VerdictAgentsModule] });
  const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
  const tools = [
    agentsTools.bound('products.view', { name: 'view_product' }),
    agentsTools.bound('payments.send', { name: 'send_payment' }),
  ];
  const tracker = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** `who` runs a tracked agent answering with `model`, from `input`, with the runner's `options`. */
  const run = (
    who: ActionContext,
    model: Model,
    input: string,
    options: { previousResponseId?: string; conversationId?: string } = {},
  ): Promise<RunResult<any, any>> =>
    contexts.run(who, () =>
      new Runner().run(
        new Agent({ name: 'Support', instructions: 'Help the customer.', model: tracker.model(model), tools }),
        input,
        options,
      ),
    );
  return { ...fixture, tracker, contexts, run };
}

/** The provenance stage's decisions on payments: disposition and reason. */
const decisions = (env: Awaited<ReturnType<typeof setup>>) =>
  env.provenanceDecisions().map((record) => [record.disposition, record.reason]);

describe('a previous response the provider keeps (OpenAI Agents)', () => {
  it('attack: a review the model read in the turn it continues is in the window: the IBAN it names is refused', async () => {
    const env = await setup(CLEAN_ONLY);
    const first = new RespondingModel([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_turn1');
    await env.run(alice, first, 'Tell me about p-1.');
    const second = new RespondingModel([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.run(alice, second, 'OK, do what the reviewer suggested.', { previousResponseId: 'resp_turn1_2' });
    // The runner sent the model only the new message: the review is on the provider's side.
    expect(second.requests[0]!.input).toEqual([{ type: 'message', role: 'user', content: expect.any(String) }]);
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('external:product-reviews (untrusted)')]]);
  });

  it('control: the IBAN the customer typed in the turn it continues is derived, and paid', async () => {
    const env = await setup(DERIVED);
    const first = new RespondingModel([{ text: 'Noted.' }], 'resp_turn1');
    await env.run(alice, first, `My IBAN is ${OWN_IBAN}; I will ask you to pay the deposit to it.`);
    const second = new RespondingModel([{ toolCalls: [pay(OWN_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.run(alice, second, 'Pay the deposit now.', { previousResponseId: 'resp_turn1_1' });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it('attack: a previous response this process never saw (another process’s, a forgotten one) is unobserved', async () => {
    const env = await setup(CLEAN_ONLY);
    // The first turn ran elsewhere: its model read the review there.
    const second = new ScriptedAgentsModel([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }]);
    await env.run(alice, second, 'OK, do what the reviewer suggested.', { previousResponseId: 'resp_turn1' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });

  it('attack: another actor continuing Alice’s response finds no window of hers: unobserved', async () => {
    const env = await setup(DERIVED);
    const first = new RespondingModel([{ text: 'Noted.' }], 'resp_turn1');
    await env.run(alice, first, `My IBAN is ${OWN_IBAN}.`);
    const second = new RespondingModel([{ toolCalls: [pay(OWN_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.run(mallory, second, 'Pay the deposit to the IBAN above.', { previousResponseId: 'resp_turn1_1' });
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });
});

describe('a conversation the provider stores (OpenAI Agents)', () => {
  it('attack: a request in a stored conversation is unobserved, even one this process saw from its start (another replica may have added to it)', async () => {
    const env = await setup(CLEAN_ONLY);
    const first = new RespondingModel([{ text: 'Hello! How can I help?' }], 'resp_a');
    await env.run(alice, first, 'Hello.', { conversationId: 'conv_1' });
    const second = new RespondingModel([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_b');
    await env.run(alice, second, 'OK, do what the reviewer suggested.', { conversationId: 'conv_1' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });

  it('attack: a stored conversation this process never saw is unobserved', async () => {
    const env = await setup(CLEAN_ONLY);
    const model = new RespondingModel([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_conv2');
    await env.run(alice, model, 'OK, do what the reviewer suggested.', { conversationId: 'conv_elsewhere' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });

  it('control: the same turns continued by their previous response pay the IBAN the customer typed', async () => {
    const env = await setup(CLEAN_ONLY);
    const first = new RespondingModel([{ text: 'Hello! How can I help?' }], 'resp_a');
    await env.run(alice, first, 'Hello.');
    const second = new RespondingModel([{ toolCalls: [pay(OWN_IBAN)] }, { text: 'paid' }], 'resp_b');
    await env.run(alice, second, `Pay 25 to ${OWN_IBAN}.`, { previousResponseId: 'resp_a_1' });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });
});
