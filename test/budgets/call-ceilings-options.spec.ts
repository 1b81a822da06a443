import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  ActionContextStore,
  type ActionContext,
  type CallCeilings,
  VerdictConfigurationError,
  VerdictService,
} from '@verdict/nestjs';
import { TypeOrmBudgetStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const inConversation = (id: string): ActionContext => ({ ...alice, metadata: { conversationId: id } });

/**
 * The documents fixture (alice reads her document 1; CASL refuses her bob's document 2) with `callCeilings` counted
 * in a `TypeOrmBudgetStore` on `dataSource`, as a `forRootAsync` factory would pass them: not type-checked.
 */
async function setup(dataSource: DataSource, callCeilings: unknown) {
  const fixture = documentsFixture();
  // One instant for the whole test: the ceilings' window cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    budgets: new TypeOrmBudgetStore(dataSource),
    callCeilings: callCeilings as CallCeilings,
    clock: () => now,
  });
  booted.push(moduleRef);
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const readAs = async (context: ActionContext, id: number) => {
    const result = await contexts.run(context, () =>
      verdict.execute({ capability: 'documents.read', arguments: { id } }),
    );
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  return { readAs };
}

/** What booting with `callCeilings` throws: the error's class and message. */
async function refusal(dataSource: DataSource, callCeilings: unknown) {
  const error = await setup(dataSource, callCeilings).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  return error === null ? 'booted' : { type: (error as Error).constructor.name, message: (error as Error).message };
}

const KEYS = 'its keys are toolCalls, deniedProposals, window.';
const NEITHER =
  'callCeilings sets neither toolCalls nor deniedProposals, so nothing would be counted: set one or both (callCeilings: { toolCalls: 200, deniedProposals: 10 }), or leave callCeilings out for no ceilings.';

describe('the module option callCeilings is what docs/options.md says ({ toolCalls?, deniedProposals?, window? })', () => {
  // The boot refuses before the store is used: on SQLite alone. What boots counts on every engine (below).
  const [sqlite] = databaseEngines();
  it.each<[string, unknown, string]>([
    [
      '[] (an array)',
      [],
      'callCeilings must be { toolCalls?, deniedProposals?, window? }, not an array: leave it out for no ceilings.',
    ],
    [
      '[200, 10] (the two ceilings as an array)',
      [200, 10],
      'callCeilings must be { toolCalls?, deniedProposals?, window? }, not an array: leave it out for no ceilings.',
    ],
    ['{ toolcalls: 200 } (a misspelt key)', { toolcalls: 200 }, `callCeilings has an unknown key "toolcalls": ${KEYS}`],
    [
      '{ deniedProposal: 10 } (a misspelt key)',
      { deniedProposal: 10 },
      `callCeilings has an unknown key "deniedProposal": ${KEYS}`,
    ],
    [
      '{ toolCalls: 200, deniedProposal: 10 } (one ceiling right, one misspelt)',
      { toolCalls: 200, deniedProposal: 10 },
      `callCeilings has an unknown key "deniedProposal": ${KEYS}`,
    ],
    [
      '{ toolcalls: 200, windowSeconds: 60 }',
      { toolcalls: 200, windowSeconds: 60 },
      `callCeilings has unknown keys "toolcalls", "windowSeconds": ${KEYS}`,
    ],
    ['{} (no ceiling)', {}, NEITHER],
    ['{ window: 3600 } (a window, no ceiling)', { window: 3_600 }, NEITHER],
    ['{ toolCalls: undefined } (an unset setting)', { toolCalls: undefined }, NEITHER],
  ])(
    'attack: callCeilings %s is refused at boot with a VerdictConfigurationError naming the option',
    async (_label, callCeilings, message) => {
      await withDataSource(sqlite!, SCHEMA, async (dataSource) => {
        expect(await refusal(dataSource, callCeilings)).toEqual({ type: VerdictConfigurationError.name, message });
      });
    },
  );

  for (const engine of databaseEngines()) {
    it(`utility: each documented shape boots and counts [${engine.name}]`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        // toolCalls alone, with a window: the third proposal of a conversation is refused, another is not counted.
        const calls = await setup(dataSource, { toolCalls: 2, window: 3_600 });
        const c1 = inConversation('c-1');
        expect([await calls.readAs(c1, 1), await calls.readAs(c1, 1), await calls.readAs(c1, 1)]).toEqual([
          'executed',
          'executed',
          'deny@call_ceiling',
        ]);
        expect(await calls.readAs(inConversation('c-2'), 1)).toBe('executed');

        // deniedProposals alone: two refusals stop the conversation.
        const denials = await setup(dataSource, { deniedProposals: 2 });
        const c3 = inConversation('c-3');
        expect([await denials.readAs(c3, 2), await denials.readAs(c3, 2), await denials.readAs(c3, 1)]).toEqual([
          'deny@proposal',
          'deny@proposal',
          'deny@call_ceiling',
        ]);

        // Both: boots, and the tool-call ceiling counts.
        const both = await setup(dataSource, { toolCalls: 1, deniedProposals: 10 });
        const c4 = inConversation('c-4');
        expect([await both.readAs(c4, 1), await both.readAs(c4, 1)]).toEqual(['executed', 'deny@call_ceiling']);
      });
    });
  }
});
