import { describe, expect, it } from '@jest/globals';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { ProvenanceSource, UnreleasedContextError } from '@verdict/nestjs';
import { QuarantinedReaders } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { INJECTION } from './bill.fixture.js';

/** An image whose pixels may spell out an instruction: the quarantined model reads text only. */
const SCREENSHOT = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };

/** One run of an agent with quarantined reading: the model calls `read_file` once; answers what it was shown. */
async function readWith(answer: (toolCallId: string) => unknown) {
  const app = await paymentsFixture({ quarantine: { model: new ScriptedChatModel([], { label: 'quarantined' }) } });
  const readFile = tool(
    async (_input: { path: string }, config: { toolCall?: { id?: string } }) => answer(config.toolCall?.id ?? ''),
    { name: 'read_file', description: 'Read a file', schema: z.object({ path: z.string() }) },
  );
  const model = new ScriptedChatModel(
    [{ toolCalls: [{ name: 'read_file', args: { path: 'bill.png' }, id: 'call_read' }] }, { text: 'done' }],
    { label: 'deciding' },
  );
  const reading = app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: z.object({ iban: z.string() }) } });
  const tracker = app.trackers.forAgent({ tools: { read_file: ProvenanceSource.mcp('files') } });
  const agent = createAgent({
    model,
    tools: [readFile, ...app.tools],
    checkpointer: new MemorySaver(),
    middleware: [reading.middleware(), tracker.middleware()],
  });
  // LangChain wraps a middleware's error in its MiddlewareError: the typed error is its cause.
  const run = app
    .as(() =>
      agent.invoke(
        { messages: [new HumanMessage('Pay the bill in bill.png.')] },
        { configurable: { thread_id: 't-1' } },
      ),
    )
    .catch((error: unknown) => {
      throw (error as { cause?: unknown }).cause ?? error;
    });
  return { run, model };
}

describe('quarantined reading of a result that is not text', () => {
  it('attack: an image-only result of a quarantined tool is refused, never handed to the deciding model', async () => {
    const { run, model } = await readWith(() => [SCREENSHOT]);

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
  });

  it('attack: a result with text and an image is refused too: the handle could not hold the image', async () => {
    const { run, model } = await readWith(() => [{ type: 'text', text: 'Invoice attached.' }, SCREENSHOT]);

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
  });

  it('attack: a Command a quarantined tool returns is refused: its messages would reach the deciding model', async () => {
    const { run, model } = await readWith(
      (id) => new Command({ update: { messages: [new ToolMessage({ content: INJECTION, tool_call_id: id })] } }),
    );

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
  });

  it('attack: a text part whose text is an object is read, and reaches the deciding model as a handle', async () => {
    const { run, model } = await readWith(() => [{ type: 'text', text: { value: INJECTION } }]);

    await run;
    expect(model.toolMessages()[0]?.content).toMatch(/^\{"quarantined":"q-[0-9a-f-]+"/);
    expect(JSON.stringify(model.transcript.map((messages) => messages.map((m) => m.content)))).not.toContain(INJECTION);
  });

  it('attack: a result without text whose part holds a field beside it (an id) is refused, never handed on', async () => {
    const { run, model } = await readWith(() => [{ type: 'text', text: '', id: INJECTION }]);

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
  });

  it('control: an empty result (no text, no other field) still reaches the deciding model as it is', async () => {
    const { run, model } = await readWith(() => [{ type: 'text', text: '' }]);

    await run;
    expect(model.transcript).toHaveLength(2);
    expect(model.toolMessages()[0]?.content).toEqual([{ type: 'text', text: '' }]);
  });

  it('control: a plain text result still reaches the deciding model as a handle', async () => {
    const { run, model } = await readWith(() => `Invoice. ${INJECTION}`);

    await run;
    expect(model.toolMessages()[0]?.content).toMatch(/^\{"quarantined":"q-[0-9a-f-]+","sources":\["mcp:files"\]/);
    expect(JSON.stringify(model.transcript.map((messages) => messages.map((m) => m.content)))).not.toContain(INJECTION);
  });
});
