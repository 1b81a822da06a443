import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import type { DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  ExecutionTargetPolicy,
  VerdictConfigurationError,
  VerdictModule,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { VerdictMcpModule } from '@verdict/nestjs/mcp';
import { z } from 'zod';

/**
 * docs/mcp.md: `path` shapes the module, so `forRootAsync` takes it beside the factory. A `path` the factory returned
 * was silently ignored, and the endpoint served at the default `/mcp`, not where the application meant it (ADR 0206):
 * it is now refused at boot, as `VerdictModule`'s refuses an `isGlobal` returned by its factory.
 */

const read = defineCapability(
  {
    subject: 'Note',
    action: 'read',
    name: 'notes.read',
    description: 'Read the note',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'note', identity: (n: { id: number }) => n.id }),
  },
  () => 'note',
);

async function application(mcp: DynamicModule) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({ abilityFactory: { createForContext: () => createMongoAbility() }, capabilities: [read] }),
      mcp,
    ],
  }).compile();
  return moduleRef.createNestApplication({ logger: false });
}

/** The HTTP status of an unauthenticated `tools/list` at `path` (401: Verdict's endpoint is there). */
async function statusAt(app: Awaited<ReturnType<typeof application>>, path: string): Promise<number> {
  const response = await request(app.getHttpServer())
    .post(path)
    .set('accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return response.status;
}

describe('VerdictMcpModule.forRootAsync and path', () => {
  it('refuses a path the factory returns, naming the option', async () => {
    const app = await application(
      VerdictMcpModule.forRootAsync({
        useFactory: () => ({ tools: ['notes.read'], authenticate: () => null, path: 'internal/agents/mcp' }),
      }),
    );
    const booting = app.init();
    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toMatchObject({ context: { option: 'path' } });
    await expect(booting).rejects.toThrow('beside useFactory');
    await app.close();
  });

  it('control: a path beside the factory serves the endpoint there', async () => {
    const app = await application(
      VerdictMcpModule.forRootAsync({
        path: 'internal/agents/mcp',
        useFactory: () => ({ tools: ['notes.read'], authenticate: () => null }),
      }),
    );
    await app.init();
    expect(await statusAt(app, '/internal/agents/mcp')).toBe(401);
    expect(await statusAt(app, '/mcp')).toBe(404);
    await app.close();
  });
});
