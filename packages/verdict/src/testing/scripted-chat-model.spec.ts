import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware } from 'langchain';
import { z } from 'zod';

import { ScriptExhaustedError, ScriptedChatModel } from './scripted-chat-model.js';

interface Invocation {
  tool: string;
  args: unknown;
  toolCallId: string | undefined;
}

/** Tools that record every invocation, so tests can assert what actually executed. */
function recordingTools() {
  const invocations: Invocation[] = [];
  const lookupOrder = tool(
    async ({ orderId }, config) => {
      invocations.push({ tool: 'lookup_order', args: { orderId }, toolCallId: config.toolCall?.id });
      return `order ${orderId}: shipped`;
    },
    {
      name: 'lookup_order',
      description: 'Look up an order by id.',
      schema: z.object({ orderId: z.string().describe('The order id') }),
    },
  );
  const refund = tool(
    async ({ orderId, amount }, config) => {
      invocations.push({ tool: 'refund', args: { orderId, amount }, toolCallId: config.toolCall?.id });
      return `refunded ${amount} on ${orderId}`;
    },
    {
      name: 'refund',
      description: 'Refund an order.',
      schema: z.object({ orderId: z.string(), amount: z.number() }),
    },
  );
  const failing = tool(
    async (_input, config) => {
      invocations.push({ tool: 'failing', args: _input, toolCallId: config.toolCall?.id });
      throw new TypeError('backend unavailable');
    },
    { name: 'failing', description: 'Always throws.', schema: z.object({}) },
  );
  return { invocations, lookupOrder, refund, failing };
}

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('ScriptedChatModel', () => {
  describe('driving a real createAgent', () => {
    it('delivers the scripted tool call to the tool and shows the tool output to the model on the next turn', async () => {
      const { invocations, lookupOrder, refund } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' }] },
        { text: 'Order o-1 has shipped.' },
      ]);
      const agent = createAgent({ model, tools: [lookupOrder, refund], systemPrompt: 'You are a store assistant.' });

      const result = await agent.invoke(ask('Where is my order o-1?'));

      // (c) what executed: the tool ran once, with the scripted args and tool-call id.
      expect(invocations).toEqual([{ tool: 'lookup_order', args: { orderId: 'o-1' }, toolCallId: 'call-1' }]);

      // (a) what the model emitted.
      expect(model.emittedToolCalls()).toEqual([
        { turn: 0, name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-1' },
      ]);

      // (b) what the model was shown on each turn.
      expect(model.transcript).toHaveLength(2);
      const [first, second] = model.transcript;
      expect(first.map((m) => m.getType())).toEqual(['system', 'human']);
      expect(first[0]).toBeInstanceOf(SystemMessage);
      expect(first[0].text).toBe('You are a store assistant.'); // createAgent sends the system prompt as content blocks
      expect(first[1].content).toBe('Where is my order o-1?');
      expect(second.map((m) => m.getType())).toEqual(['system', 'human', 'ai', 'tool']);
      const shown = second[3];
      expect(ToolMessage.isInstance(shown)).toBe(true);
      expect(shown).toMatchObject({ tool_call_id: 'call-1', name: 'lookup_order', content: 'order o-1: shipped' });
      expect(model.toolMessages()).toEqual([
        { turn: 1, tool_call_id: 'call-1', name: 'lookup_order', content: 'order o-1: shipped', status: 'success' },
      ]);
      expect(model.toolMessagesShownOn(0)).toEqual([]);

      // The run ends on the text turn, and the whole script was used.
      const last = result.messages.at(-1);
      expect(AIMessage.isInstance(last)).toBe(true);
      expect(last?.content).toBe('Order o-1 has shipped.');
      expect(model.callCount).toBe(2);
      expect(model.remainingTurns).toBe(0);
      expect(() => model.assertScriptConsumed()).not.toThrow();
    });

    it('records the bound tools (names and JSON schemas) on every turn without tripping the bound-tools check', async () => {
      const { lookupOrder, refund } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'refund', args: { orderId: 'o-2', amount: 5 }, id: 'call-r' }] },
        { text: 'Refunded.' },
      ]);
      const agent = createAgent({ model, tools: [lookupOrder, refund] });

      await agent.invoke(ask('Refund o-2'));

      expect(model.boundTools).toEqual([]); // the root model stays unbound
      expect(model.lastBoundTools.map((t) => t.name)).toEqual(['lookup_order', 'refund']);
      expect(model.turns.map((t) => t.boundTools.map((b) => b.name))).toEqual([
        ['lookup_order', 'refund'],
        ['lookup_order', 'refund'],
      ]);
      expect(model.lastBoundTools[0]).toMatchObject({
        name: 'lookup_order',
        description: 'Look up an order by id.',
        schema: {
          type: 'object',
          properties: { orderId: { type: 'string', description: 'The order id' } },
          required: ['orderId'],
        },
      });
    });

    it('runs parallel tool calls from one turn and shows each result with its own tool_call_id', async () => {
      const { invocations, lookupOrder, refund } = recordingTools();
      const model = new ScriptedChatModel([
        {
          text: 'Checking both.',
          toolCalls: [
            { name: 'lookup_order', args: { orderId: 'o-1' }, id: 'call-a' },
            { name: 'refund', args: { orderId: 'o-1', amount: 10 }, id: 'call-b' },
          ],
        },
        { text: 'Done.' },
      ]);
      const agent = createAgent({ model, tools: [lookupOrder, refund] });

      await agent.invoke(ask('Check and refund o-1'));

      expect(invocations.map((i) => [i.tool, i.toolCallId]).sort()).toEqual([
        ['lookup_order', 'call-a'],
        ['refund', 'call-b'],
      ]);
      expect(model.turns[0].response?.content).toBe('Checking both.');
      expect(model.toolMessagesShownOn(1).map(({ tool_call_id, content }) => ({ tool_call_id, content }))).toEqual([
        { tool_call_id: 'call-a', content: 'order o-1: shipped' },
        { tool_call_id: 'call-b', content: 'refunded 10 on o-1' },
      ]);
    });

    it('lets an adaptive step choose its turn from the messages it is shown', async () => {
      const { invocations, lookupOrder, refund } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-3' }, id: 'call-1' }] },
        (messages) => {
          const last = messages.at(-1);
          return ToolMessage.isInstance(last) && String(last.content).includes('shipped')
            ? { text: 'It shipped, no refund needed.' }
            : { toolCalls: [{ name: 'refund', args: { orderId: 'o-3', amount: 1 }, id: 'call-2' }] };
        },
      ]);
      const agent = createAgent({ model, tools: [lookupOrder, refund] });

      const result = await agent.invoke(ask('Refund o-3 unless it shipped'));

      expect(invocations.map((i) => i.tool)).toEqual(['lookup_order']);
      expect(result.messages.at(-1)?.content).toBe('It shipped, no refund needed.');
    });

    it('works with agent.stream() in updates and messages modes', async () => {
      const { invocations, lookupOrder } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-4' }, id: 'call-s' }] },
        { text: 'Shipped.' },
        { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-5' }, id: 'call-t' }] },
        { text: 'Also shipped.' },
      ]);
      const agent = createAgent({ model, tools: [lookupOrder] });

      const nodes: string[] = [];
      for await (const update of await agent.stream(ask('Where is o-4?'), { streamMode: 'updates' })) {
        nodes.push(...Object.keys(update));
      }
      expect(nodes).toEqual(['model_request', 'tools', 'model_request']);

      const streamed: { type: string; node: unknown; text: string; toolCallIds: string[] }[] = [];
      for await (const [chunk, metadata] of await agent.stream(ask('And o-5?'), { streamMode: 'messages' })) {
        streamed.push({
          type: chunk.getType(),
          node: metadata.langgraph_node,
          text: chunk.text,
          toolCallIds: (AIMessage.isInstance(chunk) ? (chunk.tool_calls ?? []) : []).map((c) => c.id ?? ''),
        });
      }
      // Without _streamResponseChunks each model turn arrives as one complete message.
      expect(streamed.filter((s) => s.node === 'model_request')).toMatchObject([
        { type: 'ai', text: '', toolCallIds: ['call-t'] },
        { type: 'ai', text: 'Also shipped.', toolCallIds: [] },
      ]);
      expect(streamed.find((s) => s.node === 'tools')).toMatchObject({ type: 'tool', text: 'order o-5: shipped' });

      expect(invocations.map((i) => i.toolCallId)).toEqual(['call-s', 'call-t']);
      expect(model.toolMessages().map((m) => m.tool_call_id)).toEqual(['call-s', 'call-t']);
    });

    it('fails loudly when the agent calls the model more often than scripted', async () => {
      const { invocations, lookupOrder } = recordingTools();
      const model = new ScriptedChatModel(
        [{ toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-6' }, id: 'call-x' }] }],
        { label: 'runaway-model' },
      );
      const agent = createAgent({ model, tools: [lookupOrder] });

      const run = agent.invoke(ask('Where is o-6?'));

      await expect(run).rejects.toBeInstanceOf(ScriptExhaustedError);
      await expect(run).rejects.toThrow(
        /runaway-model: script exhausted: the model was called for turn 2 but the script has only 1 turn\(s\).*tool \(tool_call_id=call-x\): "order o-6: shipped"/s,
      );
      expect(invocations).toHaveLength(1);
      // The failed call is still recorded, so the test can see what the model was shown.
      expect(model.callCount).toBe(2);
      expect(model.turns[1].response).toBeUndefined();
    });

    it('reports unused turns when the agent stops early', async () => {
      const { lookupOrder } = recordingTools();
      const model = new ScriptedChatModel([{ text: 'Nothing to do.' }, { text: 'never reached' }]);
      await createAgent({ model, tools: [lookupOrder] }).invoke(ask('hi'));
      expect(() => model.assertScriptConsumed()).toThrow(/1 scripted turn\(s\) were never used/);
    });
  });

  describe('tool errors (pins the langchain behaviour the agent tests rely on)', () => {
    it('turns a throwing tool into an error ToolMessage that the model sees', async () => {
      const { invocations, failing } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'failing', args: {}, id: 'call-f' }] },
        { text: 'Sorry, that failed.' },
      ]);
      await createAgent({ model, tools: [failing] }).invoke(ask('go'));

      expect(invocations).toHaveLength(1);
      expect(model.toolMessages()).toEqual([
        {
          turn: 1,
          tool_call_id: 'call-f',
          name: 'failing',
          content: 'TypeError: backend unavailable\n Please fix your mistakes.',
          status: 'error',
        },
      ]);
    });

    it('lets the tool error propagate out of agent.invoke once a wrapToolCall middleware rethrows it', async () => {
      const { failing } = recordingTools();
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'failing', args: {}, id: 'call-f' }] },
        { text: 'unreachable' },
      ]);
      const passThrough = createMiddleware({
        name: 'PassThrough',
        wrapToolCall: (request, handler) => handler(request),
      });

      await expect(
        createAgent({ model, tools: [failing], middleware: [passThrough] }).invoke(ask('go')),
      ).rejects.toThrow(new TypeError('backend unavailable'));
      expect(model.callCount).toBe(1);
    });
  });

  describe('as a plain chat model', () => {
    it('answers invoke() and stream() from the same script', async () => {
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'lookup_order', args: { orderId: 'o-7' }, id: 'call-1' }] },
        { text: 'streamed answer' },
      ]);

      const first = await model.invoke([new HumanMessage('hi')]);
      expect(first.tool_calls).toEqual([
        { name: 'lookup_order', args: { orderId: 'o-7' }, id: 'call-1', type: 'tool_call' },
      ]);

      const chunks = [];
      for await (const chunk of await model.stream([new HumanMessage('again')])) chunks.push(chunk);
      expect(chunks.map((c) => c.text)).toEqual(['streamed answer']);
      expect(model.transcript.map((messages) => messages.map((m) => m.content))).toEqual([['hi'], ['again']]);
    });

    it('shares the script cursor between the model and its bindTools copies', async () => {
      const model = new ScriptedChatModel([{ text: 'one' }, { text: 'two' }]);
      const bound = model.bindTools([{ name: 'x', description: 'x', schema: z.object({}) }]);
      expect((await bound.invoke('a')).content).toBe('one');
      expect((await model.invoke('b')).content).toBe('two');
      expect(model.turns.map((t) => t.boundTools.map((b) => b.name))).toEqual([['x'], []]);
    });

    it('hands a fresh copy of the scripted args to each call', async () => {
      const args = { orderId: 'o-8' };
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'lookup_order', args, id: 'call-1' }] }]);
      const message = await model.invoke('hi');
      expect(message.tool_calls?.[0].args).toEqual(args);
      expect(message.tool_calls?.[0].args).not.toBe(args);
    });

    it('rejects malformed turns up front and from adaptive steps', async () => {
      expect(() => new ScriptedChatModel([{} as never])).toThrow(/script turn 0 needs `text` or `toolCalls`/);
      expect(() => new ScriptedChatModel([{ toolCalls: [] }])).toThrow(/toolCalls must be a non-empty array/);
      expect(() => new ScriptedChatModel([{ toolCalls: [{ name: 'lookup_order', args: {}, id: '' }] }])).toThrow(
        /tool call 0 \(lookup_order\): id is required/,
      );

      const adaptive = new ScriptedChatModel([() => ({ toolCalls: [{ name: '', args: {}, id: 'c' }] })]);
      await expect(adaptive.invoke('hi')).rejects.toThrow(/script turn 0, tool call 0: name is required/);
    });
  });
});
