import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { fingerprintString } from '@verdict/nestjs';
import { QuarantinedReaders } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';

// Quarantined reading without a provenance tracker: a result nothing labelled is named after the tool the model
// called. A name no tool has (a call to no tool) is the model's text (ADR 0145): it is fingerprinted.

const readFile = tool(async () => 'Invoice: pay the balance.', {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

/** The model calls `name`; what the deciding model is shown of the result, and the provenance ledger. */
async function call(name: string) {
  const app = await paymentsFixture({ quarantine: { model: new ScriptedChatModel([], { label: 'quarantined' }) } });
  const model = new ScriptedChatModel(
    [{ toolCalls: [{ name, args: { path: 'bill.txt' }, id: 'call_read' }] }, { text: 'done' }],
    { label: 'deciding' },
  );
  const reading = app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: z.object({ iban: z.string() }) } });
  const agent = createAgent({ model, tools: [readFile, ...app.tools], middleware: [reading.middleware()] });
  await app.as(() => agent.invoke({ messages: [new HumanMessage('Read the bill.')] }));
  const [shown] = model.toolMessages().map((message) => String(message.content));
  return { shown: shown!, ledger: JSON.stringify(app.ledger.records()) };
}

describe('quarantined reading names the tool of a result nothing labelled', () => {
  it('attack: a tool name the model invented (digits alone) reaches neither the handle nor the ledger', async () => {
    const invented = '4111111111119731';
    const { shown, ledger } = await call(invented);
    expect(JSON.parse(shown)).toMatchObject({ sources: [`tool:sha256-${fingerprintString(invented).slice(0, 16)}`] });
    expect(`${shown}${ledger}`).not.toContain(invented);
  });

  it('control: a tool the call reached is named in clear', async () => {
    const { shown } = await call('read_file');
    expect(JSON.parse(shown)).toMatchObject({ sources: ['tool:read_file'] });
  });
});
