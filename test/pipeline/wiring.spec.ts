import { describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { tool } from '@langchain/core/tools';
import { createMongoAbility } from '@casl/ability';
import { IsInt, IsOptional, IsPositive, IsString } from 'class-validator';
import { z } from 'zod';
import {
  ActionContextStore,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { CapabilityRegistry } from '../../packages/verdict/src/capabilities/capability-registry.js';
import { alice, documentsFixture } from './documents.fixture.js';

const lookupTool = tool(async () => 'raw handler ran', {
  name: 'lookup_document',
  description: 'Look up a document',
  schema: z.object({ id: z.number() }),
});

function noteCapability(
  overrides: Partial<CapabilityDefinition> = {},
  executor: ((a: any) => unknown) | null = (a) => a.target,
): CapabilityDefinition {
  return {
    ...defineCapability(
      {
        name: 'notes.read',
        description: 'Read a note',
        action: 'read',
        subject: 'Note',
        arguments: z.object({ id: z.number() }),
        resolveTarget: fromProposal(() => ({ id: 1 })),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
          name: 'note',
          identity: (note: { id: number }) => note.id,
        }),
      },
      executor,
    ),
    ...overrides,
  };
}

async function bootWith(capabilities: CapabilityDefinition[], bind?: (tools: VerdictTools) => void) {
  const fixture = documentsFixture();
  @Injectable()
  class Binder {
    constructor(tools: VerdictTools) {
      bind?.(tools);
    }
  }
  @Module({ imports: [VerdictLangChainModule], providers: [Binder] })
  class AgentModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [VerdictModule.forRoot({ abilityFactory: fixture.abilityFactory, capabilities }), AgentModule],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

const bootError = async (boot: Promise<unknown>) => {
  try {
    await boot;
  } catch (error) {
    return error as VerdictConfigurationError;
  }
  throw new Error('expected boot to fail');
};

describe('VerdictModule wiring', () => {
  it('fails at boot on a duplicate capability name, naming both places', async () => {
    const error = await bootError(bootWith([noteCapability(), noteCapability({ declaredAt: 'SecondPlace' })]));
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('declared twice');
    expect(error.message).toContain('SecondPlace');
  });

  it.each(['', '   ', ' padded'])('fails at boot on the blank or padded name %j', async (name) => {
    const error = await bootError(bootWith([noteCapability({ name })]));
    expect(error).toBeInstanceOf(VerdictConfigurationError);
  });

  it('fails at boot on a capability without an execution-target policy', async () => {
    const error = await bootError(bootWith([noteCapability({ executionTarget: undefined as never })]));
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('ExecutionTargetPolicy.refresh');
  });

  it.each([
    ['no resolveTarget', { resolveTarget: undefined as never }, 'needs resolveTarget'],
    ['no argument schema', { arguments: { id: 'number' } as never }, 'needs an argument schema'],
    ['a dotted authorizeFields entry', { authorizeFields: ['meta.owner'] }, 'top-level argument field'],
    ['an authorizeFields entry the schema does not declare', { authorizeFields: ['idd'] }, 'does not declare'],
    [
      'a policy name longer than its evidence column',
      { executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'p'.repeat(65), identity: () => 1 }) },
      'policy name',
    ],
  ])('fails at boot on a capability with %s', async (_name, overrides, message) => {
    const error = await bootError(bootWith([noteCapability(overrides as Partial<CapabilityDefinition>)]));
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain(message);
  });

  it('fails at boot without an ability factory', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [VerdictModule.forRoot({} as never)] }).compile();
    await expect(moduleRef.init()).rejects.toThrow(/needs an abilityFactory/);
  });

  it('fails at boot when a tool is bound to an unknown capability', async () => {
    const error = await bootError(bootWith([noteCapability()], (tools) => tools.bound(lookupTool, 'notes.erase')));
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('unknown capability "notes.erase"');
  });

  it('fails at boot when a tool is bound to a capability without executor', async () => {
    const error = await bootError(
      bootWith([noteCapability({}, null)], (tools) => tools.bound(lookupTool, 'notes.read')),
    );
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('has no executor');
  });

  it('accepts a guarded tool over a capability without executor', async () => {
    const moduleRef = await bootWith([noteCapability({}, null)], (tools) => tools.guarded(lookupTool, 'notes.read'));
    expect(moduleRef.get(VerdictTools)).toBeDefined();
  });

  it('discovers @Capability methods and registers builder definitions side by side', async () => {
    const fixture = documentsFixture();
    const { moduleRef } = await fixture.boot({ capabilities: [noteCapability()] });
    const names = moduleRef
      .get(CapabilityRegistry)
      .all()
      .map((definition) => definition.name);
    expect(names.sort()).toEqual(['documents.latest', 'documents.read', 'documents.rename', 'notes.read']);
  });

  it('refuses to decide before the application has booted', async () => {
    const fixture = documentsFixture();
    const moduleRef = await Test.createTestingModule({
      imports: [VerdictModule.forRoot({ abilityFactory: fixture.abilityFactory })],
    }).compile();
    const run = moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id: 1 } }));
    await expect(run).rejects.toBeInstanceOf(VerdictConfigurationError);
  });

  it('accepts a class-validator DTO as the argument schema', async () => {
    class ReadNote {
      @IsInt()
      @IsPositive()
      id!: number;

      @IsOptional()
      @IsString()
      note?: string;
    }
    const evidence = new InMemoryEvidenceRecorder();
    const definition = noteCapability({ arguments: ReadNote, subject: 'Note' });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'Note' }]) },
          capabilities: [definition],
          evidence,
        }),
      ],
    }).compile();
    await moduleRef.init();
    const verdict = moduleRef.get(VerdictService);
    const contexts = moduleRef.get(ActionContextStore);
    const ok = await contexts.run(alice, () => verdict.execute({ capability: 'notes.read', arguments: { id: 4 } }));
    const bad = await contexts.run(alice, () => verdict.execute({ capability: 'notes.read', arguments: { id: -4 } }));
    const extra = await contexts.run(alice, () =>
      verdict.execute({ capability: 'notes.read', arguments: { id: 4, admin: true } }),
    );
    const annotated = await contexts.run(alice, () =>
      verdict.execute({ capability: 'notes.read', arguments: { id: 4, note: 'hi' } }),
    );
    expect(annotated.executed).toBe(true);
    expect(ok.executed).toBe(true);
    expect(bad.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
    expect(extra.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
  });
});
