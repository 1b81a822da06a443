import { it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { OWN_IBAN, paymentsFixture } from '../provenance/payments.fixture.js';
it('dbg', async () => {
  const fixture = await paymentsFixture({ payments: { untrustedContext: 'deny' } });
  const model = new ScriptedChatModel([{ toolCalls: [{ name: 'send_payment', args: { recipient: OWN_IBAN, amount: 25 }, id: 'c1' }] }, { text: 'done' }]);
  const agent = createAgent({ model, tools: fixture.tools, middleware: [fixture.trackers.forAgent().middleware()] });
  await fixture.as(() => agent.invoke({ messages: [new HumanMessage(`Pay 25 to ${OWN_IBAN}.`)] }, { configurable: { thread_id: 't' } }));
  console.log(fixture.evidence.decisions().map((d) => d.reason));
});
