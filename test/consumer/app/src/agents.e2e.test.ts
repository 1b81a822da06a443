import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import type { INestApplicationContext } from '@nestjs/common';
import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  Runner,
  Usage,
  setTracingDisabled,
} from '@openai/agents';
import { ActionContextStore } from '@verdict/nestjs';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { alice, assertBobsRefusedAlicesShown, helpdeskWith } from './runtime-helpdesk.js';

// `@openai/agents` is added by consumer.spec.ts's second install, with strict peers (see RUNTIME_PEERS there).
setTracingDisabled(true);

/** A model asking for ticket 2 (Bob's), then ticket 1 (Alice's own), then answering. */
class ScriptedAgentsModel implements Model {
  private readonly turns: AgentOutputItem[][] = [
    [
      {
        type: 'function_call',
        callId: 'call_2',
        name: 'view_ticket',
        arguments: '{"ticketId":2}',
        status: 'completed',
      },
    ],
    [
      {
        type: 'function_call',
        callId: 'call_1',
        name: 'view_ticket',
        arguments: '{"ticketId":1}',
        status: 'completed',
      },
    ],
    [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.' }] }],
  ];

  async getResponse(): Promise<ModelResponse> {
    return { usage: new Usage(), output: this.turns.shift() ?? [] };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

describe('OpenAI Agents function tools on the packed @verdict/nestjs', () => {
  let app: INestApplicationContext;

  before(async () => {
    app = await helpdeskWith(VerdictAgentsModule);
  });
  after(() => app.close());

  it('refuses another customer’s ticket with the public answer and shows the customer’s own', async () => {
    const tools = app.get(VerdictAgentsTools, { strict: false });
    const agent = new Agent({
      name: 'Helpdesk',
      instructions: 'Help customers with their tickets.',
      model: new ScriptedAgentsModel(),
      tools: [tools.bound('tickets.view', { name: 'view_ticket' })],
    });
    const result = await app
      .get(ActionContextStore, { strict: false })
      .run(alice, () => new Runner().run(agent, 'Show me ticket 2, then ticket 1'));
    assertBobsRefusedAlicesShown(
      result.newItems
        .filter((item) => item.type === 'tool_call_output_item')
        .map((item) => String((item as unknown as { output: unknown }).output)),
    );
  });
});
