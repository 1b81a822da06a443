import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ActionContextStore,
  type DecisionRecord,
  InMemoryEvidenceRecorder,
  VerdictService,
  defineCapability,
  fingerprint,
  fixedWindow,
  fromProposal,
  windowStartOf,
} from '@verdict/nestjs';
import {
  RateLimitWindowEntity,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  databaseEngines,
  dropDataSource,
  killWhenBlocked,
  openDataSource,
  openSingleConnection,
} from '@verdict/testing-kit';
import { type Actor, type Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

const NOW = new Date('2026-01-01T10:00:00.000Z');
const servers = databaseEngines().filter((engine) => engine.name !== 'sqlite');

describe.each(servers.length > 0 ? servers : [{ name: 'no server database configured' as never }])(
  'a durable gate whose connection dies [$name]',
  (engine) => {
    const run = servers.length > 0 ? it : it.skip;

    run('rejects with the driver error: nothing executes and nothing is reported as a throttle', async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const { dataSource: pinned, connectionId } = await openSingleConnection(dataSource);
      const blocker = dataSource.createQueryRunner();
      try {
        const fixture = documentsFixture();
        const pinged: string[] = [];
        const policy = fixedWindow<{ id: number }, Document>({
          name: 'pings-per-actor',
          limit: 5,
          windowSeconds: 60,
          key: ({ context }) => ({ tenant: context.tenant, actor: (context.actor as Actor).id }),
          reason: 'ping budget exhausted',
        });
        const ping = defineCapability(
          {
            name: 'documents.ping',
            description: 'Ping',
            action: 'read',
            subject: 'Document',
            arguments: z.object({ id: z.number() }),
            resolveTarget: fromProposal(({ arguments: args, context }) =>
              fixture.load(context.tenant, (args as { id: number }).id),
            ),
            executionTarget: fixture.refreshPolicy,
            rateLimit: policy,
          },
          () => void pinged.push('alice'),
        );
        const evidence = new InMemoryEvidenceRecorder();
        const { moduleRef } = await fixture.boot({
          capabilities: [ping],
          rateLimits: new TypeOrmRateLimitStore(pinned),
          clock: () => NOW,
          evidence,
        });

        // Hold the bucket's row in an open transaction, so the gate's statement waits on its lock.
        const bucketFingerprint = fingerprint({
          capability: 'documents.ping',
          policy: policy.name,
          algorithm: 'fixed_window',
          window_seconds: 60,
          binding: { tenant: 'acme', actor: 'alice' },
        });
        await blocker.startTransaction();
        await blocker.manager.insert(RateLimitWindowEntity, {
          bucketFingerprint,
          windowStart: windowStartOf(NOW, 60),
          count: 1,
          expiresAt: new Date(NOW.getTime() + 60_000),
        });

        const attempt = moduleRef
          .get(ActionContextStore)
          .run(alice, () =>
            moduleRef.get(VerdictService).execute({ capability: 'documents.ping', arguments: { id: 1 } }),
          );
        await killWhenBlocked(dataSource, connectionId, attempt);
        await expect(attempt).rejects.toThrow(
          engine.name === 'postgres' ? /terminat/ : /killed|Connection lost|closed/,
        );

        expect(pinged).toEqual([]);
        expect(evidence.decisions().map((r: DecisionRecord) => `${r.stage}:${r.disposition}`)).toEqual([
          'proposal:permit',
          'target_refresh:permit',
          'execution:permit',
        ]);
        await moduleRef.close();
      } finally {
        if (blocker.isTransactionActive) await blocker.rollbackTransaction();
        await blocker.release();
        await pinned.destroy();
        await dropDataSource(dataSource);
      }
    });
  },
);
