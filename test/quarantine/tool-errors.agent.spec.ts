import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { type AgentMiddleware, ToolInvocationError, createAgent } from 'langchain';
import { z } from 'zod';
import { ProvenanceSource, UnreleasedContextError } from '@verdict/nestjs';
import { QuarantinedReaders, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, INJECTION } from './bill.fixture.js';

/** A file of lines to import, whose one key is the attacker's instruction. */
const FILE = JSON.stringify({ lines: { [INJECTION]: 'x' } });

/** The tool `import_file` hands the file's lines to: the lines must be numbers. */
const importLines = tool(async () => 'imported', {
  name: 'import_lines',
  description: 'Import lines',
  schema: z.object({ lines: z.record(z.string(), z.number()) }),
});

/** A tool that reads `FILE` and hands its lines to another tool: the nested call fails to parse the file. */
const importFile = tool(async () => importLines.invoke(JSON.parse(FILE) as never), {
  name: 'import_file',
  description: 'Import a file of lines',
  schema: z.object({ path: z.string() }),
});

const readFile = tool(async () => BILL, {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

/** Every text the deciding model was shown, on every turn. */
function shownTexts(model: ScriptedChatModel): string {
  return model.transcript.flatMap((messages) => messages.map((message) => JSON.stringify(message.content))).join('\n');
}

/** One run of an agent with quarantined reading (after `first`), whose deciding model follows `script`. */
async function runWith(tools: StructuredToolInterface[], script: ScriptStep[], first: AgentMiddleware[] = []) {
  const app = await paymentsFixture({ quarantine: { model: new ScriptedChatModel([], { label: 'quarantined' }) } });
  const model = new ScriptedChatModel(script, { label: 'deciding' });
  const reading = app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: z.object({ iban: z.string() }) } });
  const files = ProvenanceSource.mcp('files');
  const tracker = app.trackers.forAgent({ tools: { import_file: files, read_file: files } });
  const middleware: AgentMiddleware[] = [...first, reading.middleware(), tracker.middleware()];
  const agent = createAgent({ model, tools: [...tools, ...app.tools], checkpointer: new MemorySaver(), middleware });
  // LangChain wraps a middleware's error in its MiddlewareError: the typed error is its cause.
  const run = app
    .as(() =>
      agent.invoke({ messages: [new HumanMessage('Import lines.txt.')] }, { configurable: { thread_id: 't-1' } }),
    )
    .catch((error: unknown) => {
      throw (error as { cause?: unknown }).cause ?? error;
    });
  return { run, model };
}

const callImportFile: ScriptStep = { toolCalls: [{ name: 'import_file', args: { path: 'lines.txt' }, id: 'call_1' }] };

describe('quarantined reading of a tool call that throws', () => {
  it('attack: a nested tool call that fails to parse untrusted data fails the run; the deciding model never reads its error', async () => {
    const { run, model } = await runWith([importFile], [callImportFile, { text: 'done' }]);

    const refused = await run.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnreleasedContextError);
    // The tool's own fault stays with the application, for its logs.
    expect(ToolInvocationError.isInstance((refused as Error).cause)).toBe(true);
    expect((refused as Error).message).not.toContain('SYSTEM NOTE');
    expect(model.transcript).toHaveLength(1);
    expect(shownTexts(model)).not.toContain('SYSTEM NOTE');
  });

  it('attack: with applicationFaultMiddleware first, the nested failure still fails the run, never read', async () => {
    const { run, model } = await runWith(
      [importFile],
      [callImportFile, { text: 'done' }],
      [applicationFaultMiddleware()],
    );

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
    expect(shownTexts(model)).not.toContain('SYSTEM NOTE');
  });

  it('attack: a ToolInvocationError a tool throws itself, with another tool’s failure in it, fails the run', async () => {
    const relay = tool(
      async (_input, config: { toolCall?: { id?: string } }) => {
        throw new ToolInvocationError(new Error(INJECTION), {
          name: 'import_file',
          args: { path: 'lines.txt' },
          id: config.toolCall?.id,
        });
      },
      { name: 'import_file', description: 'Import a file of lines', schema: z.object({ path: z.string() }) },
    );
    const { run, model } = await runWith([relay], [callImportFile, { text: 'done' }]);

    await expect(run).rejects.toThrow(UnreleasedContextError);
    expect(model.transcript).toHaveLength(1);
    expect(shownTexts(model)).not.toContain('SYSTEM NOTE');
  });

  it('control: the deciding model’s own malformed arguments are reported to it, and its retry reads a handle', async () => {
    const { run, model } = await runWith(
      [readFile],
      [
        { toolCalls: [{ name: 'read_file', args: { path: 7 }, id: 'call_bad' }] },
        { toolCalls: [{ name: 'read_file', args: { path: 'bill.txt' }, id: 'call_good' }] },
        { text: 'done' },
      ],
    );

    await run;
    const [reported, read] = model.toolMessages();
    expect(reported).toMatchObject({ tool_call_id: 'call_bad', status: 'error' });
    expect(reported?.content).toContain('Error invoking tool \'read_file\' with kwargs {"path":7}');
    expect(reported?.content).toContain('Received tool input did not match expected schema');
    expect(read?.content).toMatch(/^\{"quarantined":"q-[0-9a-f-]+","sources":\["mcp:files"\]/);
    expect(shownTexts(model)).not.toContain('Hydro Utilities');
  });

  it('control: any other fault of a tool fails the run as it is, never relabelled', async () => {
    const fault = new Error('disk unavailable');
    const broken = tool(
      async () => {
        throw fault;
      },
      { name: 'import_file', description: 'Import a file of lines', schema: z.object({ path: z.string() }) },
    );
    const { run, model } = await runWith([broken], [callImportFile, { text: 'done' }]);

    await expect(run).rejects.toBe(fault);
    expect(model.transcript).toHaveLength(1);
  });

  it('control: a tool that answers its nested failure as text has it quarantined like any result', async () => {
    const answering = tool(
      async () => {
        try {
          return await importLines.invoke(JSON.parse(FILE) as never);
        } catch (error) {
          return `Import failed: ${(error as Error).message}`;
        }
      },
      { name: 'import_file', description: 'Import a file of lines', schema: z.object({ path: z.string() }) },
    );
    const { run, model } = await runWith([answering], [callImportFile, { text: 'I could not import it.' }]);

    await run;
    expect(model.toolMessages()[0]?.content).toMatch(/^\{"quarantined":"q-[0-9a-f-]+","sources":\["mcp:files"\]/);
    expect(shownTexts(model)).not.toContain('SYSTEM NOTE');
  });
});
