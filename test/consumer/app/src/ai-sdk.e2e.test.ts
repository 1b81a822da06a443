import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { INestApplicationContext } from '@nestjs/common';
import { ActionContextStore } from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { alice, assertBobsRefusedAlicesShown, helpdeskWith } from './runtime-helpdesk.js';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const usage: GenerateResult['usage'] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One step of the AI SDK's own mock model: a call of view_ticket. */
function viewTicket(id: string, ticketId: number): GenerateResult {
  const content: GenerateResult['content'] = [
    { type: 'tool-call', toolCallId: id, toolName: 'view_ticket', input: JSON.stringify({ ticketId }) },
  ];
  return { content, finishReason: { unified: 'tool-calls', raw: 'tool-calls' }, usage, warnings: [] };
}

describe('Vercel AI SDK tools on the packed @verdict/nestjs', () => {
  let app: INestApplicationContext;

  before(async () => {
    app = await helpdeskWith(VerdictAiSdkModule);
  });
  after(() => app.close());

  it('refuses another customer’s ticket with the public answer and shows the customer’s own', async () => {
    const tools = { view_ticket: app.get(VerdictAiSdkTools, { strict: false }).bound('tickets.view') };
    // The SDK's own mock model asking for ticket 2 (Bob's), then ticket 1 (Alice's own), then answering: no network.
    const done: GenerateResult = {
      content: [{ type: 'text', text: 'Done.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    };
    const model = new MockLanguageModelV4({ doGenerate: [viewTicket('call_2', 2), viewTicket('call_1', 1), done] });
    const result = await app
      .get(ActionContextStore, { strict: false })
      .run(alice, () =>
        generateText({ model, tools, prompt: 'Show me ticket 2, then ticket 1', stopWhen: stepCountIs(5) }),
      );
    assertBobsRefusedAlicesShown(result.steps.flatMap((step) => step.toolResults.map((part) => String(part.output))));
    assert.equal(result.text, 'Done.');
  });
});
