import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  DEFERRED_CLAIM_POLICY,
  ExecutionTargetPolicy,
  type ExecutionClaimStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';

/**
 * Each claim stores its `atMostOnce` policy name in a `varchar(255)` column. A longer name booted, worked on SQLite,
 * and failed every call on PostgreSQL and MariaDB at the claim, the last gate, after the earlier ones had spent: it is
 * refused at boot, on every store alike. The key is never stored (only its fingerprint), nor is a rate limit's name.
 */
const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

function noteOnce(policyName: string) {
  return defineCapability(
    {
      name: 'notes.send',
      description: 'Send the tenant note',
      action: 'send',
      subject: 'all',
      arguments: z.object({ note: z.string() }),
      resolveTarget: fromContext((context) => ({ tenant: context.tenant })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'tenant',
        identity: (target: { tenant: string | null }) => target.tenant,
      }),
      atMostOnce: atMostOnce<{ note: string }, unknown>({
        name: policyName,
        key: ({ arguments: args }) => ({ note: args.note }),
      }),
    },
    () => 'sent',
  );
}

async function boot(policyName: string, executionClaims: ExecutionClaimStore) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'send', subject: 'all' }]) },
        evidence: new InMemoryEvidenceRecorder(),
        executionClaims,
        capabilities: [noteOnce(policyName)],
      }),
    ],
  }).compile();
  await moduleRef.init();
  const send = async (note: string) => {
    const result = await moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'notes.send', arguments: { note } }));
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  return { moduleRef, send };
}

describe('atMostOnce policy names Verdict keeps for itself', () => {
  it("attack: a policy named like Verdict's own (a review item's claim) is refused at boot", async () => {
    const booting = boot(DEFERRED_CLAIM_POLICY, new InMemoryExecutionClaimStore());

    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/atMostOnce policy named "verdict\.deferred": names beginning "verdict\."/);
  });

  it('control: a name that only contains the word claims and refuses a duplicate', async () => {
    const { moduleRef, send } = await boot('notes.verdict.once', new InMemoryExecutionClaimStore());

    expect(await send('hello')).toBe('executed');
    expect(await send('hello')).toBe('deny@execution_claim');
    await moduleRef.close();
  });
});

describe('atMostOnce policy names every engine can store', () => {
  for (const engine of databaseEngines()) {
    it(`attack [${engine.name}]: a policy name of 256 characters is refused at boot, naming the limit`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const booting = boot('p'.repeat(256), new TypeOrmExecutionClaimStore(dataSource));

        await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
        await expect(booting).rejects.toThrow(/atMostOnce policy name of 256 characters: at most 255/);
      });
    });

    it(`control [${engine.name}]: a policy name of 255 characters claims, stored whole, and refuses a duplicate`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const name = `${'p'.repeat(254)}é`;
        const { moduleRef, send } = await boot(name, new TypeOrmExecutionClaimStore(dataSource));

        expect(await send('hello')).toBe('executed');
        expect(await send('hello')).toBe('deny@execution_claim');
        const rows: { policy: string }[] = await dataSource.query('SELECT policy FROM verdict_execution_claims');
        expect(rows.map((row) => row.policy)).toEqual([name]);
        await moduleRef.close();
      });
    });
  }
});
