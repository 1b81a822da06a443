import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Test } from '@nestjs/testing';
import {
  ExecutionTargetPolicy,
  VerdictConfigurationError,
  VerdictModule,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { type McpToolDeclaration, VerdictMcpModule } from '@verdict/nestjs/mcp';
import { z } from 'zod';

const target = {
  subject: 'Note',
  action: 'read',
  resolveTarget: fromContext(() => ({ id: 1 })),
  executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
    name: 'note',
    identity: (note: { id: number }) => note.id,
  }),
} as const;
const read = defineCapability(
  { ...target, name: 'notes.read', description: 'Read the note', arguments: z.object({}) },
  () => 'note',
);
const noExecutor = defineCapability(
  { ...target, name: 'notes.audit', description: 'Audit the note', arguments: z.object({}) },
  null,
);
const scalar = defineCapability(
  { ...target, name: 'notes.search', description: 'Search notes', arguments: z.string() },
  () => [],
);

/** Boots an application exposing `tools`; resolves once it is initialised. */
async function boot(tools: readonly (string | McpToolDeclaration)[]) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility() },
        capabilities: [read, noExecutor, scalar],
      }),
      VerdictMcpModule.forRoot({ tools, authenticate: () => null }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('VerdictMcpModule wiring', () => {
  it.each([
    ['an unknown capability', ['notes.write'], /unknown capability "notes.write"/],
    ['a capability without executor', ['notes.audit'], /no executor/],
    ['an arguments schema that is not an object', ['notes.search'], /must be an object/],
    ['an invalid tool name', [{ capability: 'notes.read', name: 'read notes' }], /not a valid MCP tool name/],
    ['one name twice', ['notes.read', { capability: 'notes.read' }], /used twice/],
  ])('stops the application booting for %s', async (_case, tools, message) => {
    const booting = boot(tools);
    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(message);
  });

  it('boots with known capabilities that have executors and object schemas (control)', async () => {
    await expect(boot(['notes.read', { capability: 'notes.read', name: 'read_note' }])).resolves.toBeUndefined();
  });
});
