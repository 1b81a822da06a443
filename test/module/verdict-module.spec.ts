import { describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import * as root from '@verdict/nestjs';
import {
  ActionContextStore,
  type ActionContext,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VERDICT_MODULE_OPTIONS,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { z } from 'zod';

const context: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };

interface TenantTarget {
  readonly tenant: string | null;
}

/** `notes.count`, readable by everyone: its executor answers the tenant it ran for. */
const notesCount = defineCapability(
  {
    name: 'notes.count',
    description: 'Count the tenant notes',
    action: 'read',
    subject: 'all',
    arguments: z.object({}),
    resolveTarget: fromContext((ctx): TenantTarget => ({ tenant: ctx.tenant })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<TenantTarget>({
      name: 'tenant',
      identity: (target) => target.tenant,
    }),
  },
  (action) => `counted for ${action.target.tenant}`,
);

const options = {
  abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) },
  evidence: new InMemoryEvidenceRecorder(),
  capabilities: [notesCount],
};

/** A feature provider in a module that does not import VerdictModule. */
@Injectable()
class NotesCounter {
  constructor(
    private readonly verdict: VerdictService,
    private readonly contexts: ActionContextStore,
  ) {}

  count() {
    return this.contexts.run(context, () => this.verdict.execute({ capability: 'notes.count', arguments: {} }));
  }
}

@Module({ providers: [NotesCounter], exports: [NotesCounter] })
class NotesModule {}

@Injectable()
class NotesSettings {
  readonly options = options;
}

@Module({ providers: [NotesSettings], exports: [NotesSettings] })
class SettingsModule {}

async function boot(verdict: ReturnType<typeof VerdictModule.forRoot>) {
  const moduleRef = await Test.createTestingModule({ imports: [verdict, NotesModule] }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('VerdictModule', () => {
  it('is global by default: a feature module that does not import it runs a capability', async () => {
    const moduleRef = await boot(VerdictModule.forRoot(options));
    await expect(moduleRef.get(NotesCounter).count()).resolves.toMatchObject({
      executed: true,
      output: 'counted for acme',
    });
    await moduleRef.close();
  });

  it('builds its options in forRootAsync from the modules it imports', async () => {
    const moduleRef = await boot(
      VerdictModule.forRootAsync({
        imports: [SettingsModule],
        inject: [NotesSettings],
        useFactory: (settings: NotesSettings) => settings.options,
      }),
    );
    await expect(moduleRef.get(NotesCounter).count()).resolves.toMatchObject({ executed: true });
    expect(moduleRef.get(VERDICT_MODULE_OPTIONS)).toBe(options);
    await moduleRef.close();
  });

  it('with isGlobal: false, provides only to the modules that import it', async () => {
    await expect(boot(VerdictModule.forRoot({ ...options, isGlobal: false }))).rejects.toThrow(/VerdictService/);

    const moduleRef = await Test.createTestingModule({
      imports: [VerdictModule.forRoot({ ...options, isGlobal: false })],
      providers: [NotesCounter],
    }).compile();
    await moduleRef.init();
    await expect(moduleRef.get(NotesCounter).count()).resolves.toMatchObject({ executed: true });
    await moduleRef.close();
  });

  it('keeps the pipeline and the registry out of the package entry: callers use VerdictService or VerdictTools', () => {
    const exported = Object.keys(root);
    expect(exported).toEqual(expect.arrayContaining(['VerdictModule', 'VerdictService']));
    for (const internal of ['VerdictPipeline', 'CapabilityRegistry', 'VerdictCoreModule', 'CapabilityExplorer'])
      expect(exported).not.toContain(internal);
  });
});
