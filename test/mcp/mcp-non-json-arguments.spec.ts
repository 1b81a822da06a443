import { describe, expect, it } from '@jest/globals';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictModule,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { McpServerFactory, VerdictMcpModule } from '@verdict/nestjs/mcp';

/**
 * Arguments the zod schema accepts but that are not plain JSON (a lone surrogate, a record key `constructor` or
 * `prototype`) are the client's malformed call, as a schema failure is: `InvalidParams`, nothing recorded, nothing
 * written (docs/mcp.md). Before, the pipeline recorded a deny at stage `proposal` and answered the refusal.
 */
async function notebookServer() {
  const evidence = new InMemoryEvidenceRecorder();
  const written: unknown[] = [];
  const notebook = { __caslSubjectType__: 'Notebook', id: 'nb-1' };
  const add = defineCapability(
    {
      name: 'notes.add',
      description: 'Add a note',
      action: 'write',
      subject: 'Notebook',
      arguments: z.object({ text: z.string(), tags: z.record(z.string(), z.string()).optional() }),
      resolveTarget: fromContext(() => notebook),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'notebook', identity: () => notebook.id }),
      mutates: true,
    },
    (action) => {
      written.push(action.arguments);
      return { added: true };
    },
  );
  // The application's own schema makes a Date of what the client sent: a fault of the capability, not the client's.
  const remind = defineCapability(
    {
      name: 'notes.remind',
      description: 'Remind me of the notebook at a time',
      action: 'write',
      subject: 'Notebook',
      arguments: z.object({ at: z.string().transform((at) => new Date(at)) }),
      resolveTarget: fromContext(() => notebook),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'notebook', identity: () => notebook.id }),
      mutates: true,
    },
    (action) => {
      written.push(action.arguments);
      return { reminded: true };
    },
  );
  const abilityFactory = {
    createForContext() {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('write', 'Notebook');
      return build();
    },
  };
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({ abilityFactory, capabilities: [add, remind], evidence }),
      VerdictMcpModule.forRoot({ tools: ['notes.add', 'notes.remind'], authenticate: async () => null }),
    ],
  }).compile();
  await moduleRef.init();
  const principal: ActionContext = { actor: { id: 'alice' }, tenant: 'acme' };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await moduleRef.get(McpServerFactory).create(principal).connect(serverSide);
  const client = new Client({ name: 'notes-client', version: '1.0.0' });
  await client.connect(clientSide);
  const call = (args: Record<string, unknown>, name = 'notes.add') => client.callTool({ name, arguments: args });
  return { call, evidence, written, close: () => moduleRef.close() };
}

const NOT_JSON: [string, Record<string, unknown>][] = [
  ['a string with a lone surrogate', { text: 'hello \ud800' }],
  ['a record key `constructor`', { text: 'hi', tags: { constructor: 'x' } }],
  ['a record key `prototype`', { text: 'hi', tags: { prototype: 'x' } }],
  // As a JSON-RPC body parses it: an own key `__proto__`, which the schema's record would silently drop.
  ['a record key `__proto__`', JSON.parse('{"text":"hi","tags":{"__proto__":"x"}}') as Record<string, unknown>],
];

describe('MCP tools/call: arguments that are not plain JSON', () => {
  it.each(NOT_JSON)('attack: %s is InvalidParams; nothing is recorded or written', async (_case, args) => {
    const server = await notebookServer();
    try {
      const error = await server.call(args).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect(server.evidence.decisions()).toEqual([]);
      expect(server.written).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("control: plain JSON the capability's own schema turns into a Date is the pipeline's recorded refusal, not the client's error", async () => {
    const server = await notebookServer();
    try {
      const result = (await server.call({ at: '2026-12-24T18:00:00Z' }, 'notes.remind')) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(server.evidence.decisions()).toEqual([
        expect.objectContaining({ capability: 'notes.remind', disposition: 'deny', stage: 'proposal' }),
      ]);
      expect(server.written).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('control: a note with tags is written', async () => {
    const server = await notebookServer();
    try {
      const result = (await server.call({ text: 'hello', tags: { colour: 'blue' } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      expect(server.written).toEqual([{ text: 'hello', tags: { colour: 'blue' } }]);
    } finally {
      await server.close();
    }
  });
});
