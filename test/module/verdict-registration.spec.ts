import { describe, expect, it } from '@jest/globals';
import { tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import {
  type AbilityFactory,
  ActionContextStore,
  type ActionContext,
  Capability,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { VerdictCliModule } from '@verdict/nestjs/cli';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { VerdictMcpModule } from '@verdict/nestjs/mcp';
import { VerdictAgentsModule } from '@verdict/nestjs/openai-agents';
import { z } from 'zod';

/**
 * docs/options.md (registration, `isGlobal`), ADR 0179: `VerdictModule` is registered once per application, and
 * Verdict's integration modules boot beside `isGlobal: false`.
 */
const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c1' } };
const denyAll: AbilityFactory = { createForContext: () => createMongoAbility([]) };
const allowAll: AbilityFactory = {
  createForContext: () => createMongoAbility([{ action: 'manage', subject: 'all' }]),
};

const deletions: string[] = [];

/** `docs.delete`, discovered from the application's provider: only an ability that allows `delete` runs it. */
@Injectable()
class Docs {
  @Capability({
    name: 'docs.delete',
    description: 'Delete the document',
    action: 'delete',
    subject: 'all',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({
      name: 'document',
      identity: (target) => target.id,
    }),
  })
  delete() {
    deletions.push('docs.delete');
    return 'deleted';
  }
}

const reads: string[] = [];
const notesRead = defineCapability(
  {
    name: 'notes.read',
    description: 'Read the notes',
    action: 'read',
    subject: 'all',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({
      name: 'notes',
      identity: (target) => target.id,
    }),
  },
  () => {
    reads.push('notes.read');
    return 'the notes';
  },
);
const readAll: AbilityFactory = { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) };

async function boot(metadata: Parameters<typeof Test.createTestingModule>[0]): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  try {
    await moduleRef.init();
  } catch (error) {
    await moduleRef.close();
    throw error;
  }
  return moduleRef;
}

function deleteAs(moduleRef: TestingModule) {
  return moduleRef
    .get(ActionContextStore)
    .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'docs.delete', arguments: {} }));
}

describe('VerdictModule registered more than once', () => {
  it('attack: a library module’s own forRoot beside the application’s is refused at boot', async () => {
    deletions.length = 0;
    const appEvidence = new InMemoryEvidenceRecorder();
    @Module({
      imports: [VerdictModule.forRoot({ abilityFactory: allowAll, evidence: new InMemoryEvidenceRecorder() })],
    })
    class SomeLibModule {}

    const booted = boot({
      imports: [VerdictModule.forRoot({ abilityFactory: denyAll, evidence: appEvidence }), SomeLibModule],
      providers: [Docs],
    });

    await expect(booted).rejects.toThrow(VerdictConfigurationError);
    await expect(booted).rejects.toThrow(/VerdictModule is registered more than once.*register it once/);
    expect(deletions).toEqual([]);
  });

  it('attack: forRoot and forRootAsync side by side are refused at boot', async () => {
    const booted = boot({
      imports: [
        VerdictModule.forRoot({ abilityFactory: denyAll }),
        VerdictModule.forRootAsync({ useFactory: () => ({ abilityFactory: allowAll }) }),
      ],
    });
    await expect(booted).rejects.toThrow(/VerdictModule is registered more than once/);
  });

  it('control: one registration, imported by the application and its feature modules, boots under its options', async () => {
    deletions.length = 0;
    const evidence = new InMemoryEvidenceRecorder();
    const verdict = VerdictModule.forRoot({ abilityFactory: denyAll, evidence, isGlobal: false });
    @Module({ imports: [verdict], providers: [Docs] })
    class DocsModule {}
    @Module({ imports: [verdict] })
    class ReportsModule {}

    const moduleRef = await boot({ imports: [verdict, DocsModule, ReportsModule] });

    await expect(deleteAs(moduleRef)).resolves.toMatchObject({ executed: false });
    expect(deletions).toEqual([]);
    expect(evidence.decisions().length).toBeGreaterThan(0);
    await moduleRef.close();
  });

  it('control: two applications in one process each boot under their own registration', async () => {
    deletions.length = 0;
    const denying = await boot({ imports: [VerdictModule.forRoot({ abilityFactory: denyAll })], providers: [Docs] });
    const allowing = await boot({ imports: [VerdictModule.forRoot({ abilityFactory: allowAll })], providers: [Docs] });

    await expect(deleteAs(denying)).resolves.toMatchObject({ executed: false });
    await expect(deleteAs(allowing)).resolves.toMatchObject({ executed: true, output: 'deleted' });
    expect(deletions).toEqual(['docs.delete']);
    await denying.close();
    await allowing.close();
  });
});

describe('VerdictModule with isGlobal: false beside an integration module', () => {
  const verdict = () =>
    VerdictModule.forRoot({
      abilityFactory: readAll,
      evidence: new InMemoryEvidenceRecorder(),
      capabilities: [notesRead],
      isGlobal: false,
    });

  it('attack: VerdictLangChainModule boots in the module that imports both, and a bound tool call runs', async () => {
    reads.length = 0;
    const moduleRef = await boot({ imports: [verdict(), VerdictLangChainModule] });
    const readNotes = tool(async () => 'unguarded', {
      name: 'read_notes',
      description: 'Read the notes',
      schema: z.object({}),
    });
    const bound = moduleRef.get(VerdictTools).bound(readNotes, 'notes.read');

    const answer = await moduleRef
      .get(ActionContextStore)
      .run(alice, () => bound.invoke({ name: 'read_notes', args: {}, id: 'call_1', type: 'tool_call' }));

    expect(reads).toEqual(['notes.read']);
    expect(JSON.stringify(answer)).toContain('the notes');
    await moduleRef.close();
  });

  it('attack: VerdictAiSdkModule boots in the module that imports both, and a bound tool call runs', async () => {
    reads.length = 0;
    const moduleRef = await boot({ imports: [verdict(), VerdictAiSdkModule] });
    const bound = moduleRef.get(VerdictAiSdkTools).bound('notes.read', { name: 'read_notes' });

    const answer = await moduleRef
      .get(ActionContextStore)
      .run(alice, () => bound.execute!({} as never, { toolCallId: 'call_1', messages: [], context: {} }));

    expect(reads).toEqual(['notes.read']);
    expect(JSON.stringify(answer)).toContain('the notes');
    await moduleRef.close();
  });

  it.each([
    ['VerdictAgentsModule', VerdictAgentsModule],
    ['VerdictMcpModule.forRoot', VerdictMcpModule.forRoot({ tools: ['notes.read'], authenticate: () => null })],
    ['VerdictCliModule', VerdictCliModule],
  ] as const)('attack: %s boots in the module that imports both', async (_name, integration) => {
    const moduleRef = await boot({ imports: [verdict(), integration] });
    await moduleRef.close();
  });

  it('control: a module that does not import VerdictModule still cannot inject VerdictService', async () => {
    @Injectable()
    class NotesReader {
      constructor(readonly verdict: VerdictService) {}
    }
    @Module({ imports: [VerdictLangChainModule], providers: [NotesReader] })
    class FeatureModule {}

    await expect(boot({ imports: [verdict(), VerdictLangChainModule, FeatureModule] })).rejects.toThrow(
      /VerdictService at index \[0\] is available in the FeatureModule/,
    );
  });
});
