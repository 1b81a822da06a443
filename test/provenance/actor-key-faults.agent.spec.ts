import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { type ActionContext, type ActorKey, type ProvenancePolicy, VerdictConfigurationError } from '@verdict/nestjs';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { OWN_IBAN, paymentsFixture } from './payments.fixture.js';

const VIEW = { name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' };
const PAY = { name: 'send_payment', args: { recipient: OWN_IBAN, amount: 25 }, id: 'call_pay' };
/** Reads p-1 (its reviews are untrusted), then pays the IBAN the customer typed. */
const PAY_TYPED: ScriptStep[] = [{ toolCalls: [VIEW] }, { toolCalls: [PAY] }, { text: 'done' }];
const TYPED = `Show p-1, then pay 25 to ${OWN_IBAN}.`;
const TRUSTED_ONLY: ProvenancePolicy = { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } };

const customer = (actor: Record<string, unknown>): ActionContext => ({
  actor,
  tenant: 'acme',
  metadata: { conversationId: 'k-1' },
});

/**
 * One real createAgent loop with the provenance tracker, as `context`, under the module's `actorKey`: how it ended
 * (the agent's state, or what it rejected with), what the model was asked, what was paid and decided.
 */
async function run(context: ActionContext, actorKey: ActorKey | undefined, script: ScriptStep[]) {
  const fixture = await paymentsFixture({ payments: TRUSTED_ONLY, context, actorKey });
  const model = new ScriptedChatModel(script);
  const agent = createAgent({
    model,
    tools: fixture.tools,
    checkpointer: new MemorySaver(),
    middleware: [fixture.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const ended = await fixture
    .as(() => agent.invoke({ messages: [new HumanMessage(TYPED)] }, config))
    .then(
      () => ({ rejected: false as const }),
      (error: unknown) => ({ rejected: true as const, error }),
    );
  return { ended, turns: model.turns.length, payments: fixture.payments, decisions: fixture.evidence.decisions() };
}

/** The application's key: the customer profile's id. A guest has no profile, and the key has a bug for them. */
const profileKey = (actor: { profile: { id: string } }) => actor.profile.id;

describe('an actorKey that throws is an application fault, not an actor without a stable key (ADR 0204)', () => {
  it('attack: a key that throws for a guest fails the run with its own error before the model reads anything', async () => {
    const thrown: unknown[] = [];
    const actorKey = (actor: { profile: { id: string } }) => {
      try {
        return profileKey(actor);
      } catch (error) {
        thrown.push(error);
        throw error;
      }
    };
    // A run in which the model answers without calling a tool: no capability ever asks the key.
    const { ended, turns } = await run(customer({ id: 'guest-7' }), actorKey, [{ text: 'Hello!' }]);
    expect(thrown[0]).toBeInstanceOf(TypeError);
    expect(ended.rejected && ended.error).toBe(thrown[0]);
    expect(turns).toBe(0);
  });

  it('attack: a key whose lookup fails as the message is labelled fails the run; nothing is paid or decided', async () => {
    const outage = new Error('customer directory unavailable');
    let lookups = 0;
    // The directory drops the first lookup (the message's labelling) and answers every later one.
    const actorKey = (actor: { id: string }) => {
      lookups += 1;
      if (lookups === 1) throw outage;
      return `customer:${actor.id}`;
    };
    const { ended, turns, payments, decisions } = await run(customer({ id: 'alice' }), actorKey, PAY_TYPED);
    expect(ended.rejected && ended.error).toBe(outage);
    expect(turns).toBe(0);
    expect(payments).toHaveLength(0);
    expect(decisions).toHaveLength(0);
  });

  it('attack: a key that throws a VerdictConfigurationError of its own is a fault too: who threw, not what', async () => {
    const thrown = new VerdictConfigurationError('customer directory: no customer for this session');
    const actorKey = () => {
      throw thrown;
    };
    const { ended, turns, payments } = await run(customer({ id: 'alice' }), actorKey, PAY_TYPED);
    expect(ended.rejected && ended.error).toBe(thrown);
    expect(turns).toBe(0);
    expect(payments).toHaveLength(0);
  });

  it('utility: a key that reads the actor pays the IBAN the customer typed', async () => {
    const { ended, payments } = await run(
      customer({ id: 'alice', profile: { id: 'customer:72' } }),
      profileKey,
      PAY_TYPED,
    );
    expect(ended).toEqual({ rejected: false });
    expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it.each<[string, ActionContext, ActorKey | undefined]>([
    // No actorKey: the key is the actor itself, and a Date in it is not plain JSON.
    ['no actorKey and an actor that is not plain JSON', customer({ id: 'alice', since: new Date(0) }), undefined],
    // A key that names nobody for this actor (a guest without a profile).
    [
      'a key that gives null',
      customer({ id: 'alice' }),
      (actor: { profile?: { id: string } }) => actor.profile?.id ?? null,
    ],
    ['a key that gives a blank string', customer({ id: 'alice' }), () => ' '],
  ])(
    'utility: an actor without a stable key (%s) is known by its action context and pays what it typed',
    async (_, context, actorKey) => {
      const { ended, payments } = await run(context, actorKey, PAY_TYPED);
      expect(ended).toEqual({ rejected: false });
      expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
    },
  );
});
