import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ActionContextStore,
  TargetNotResolvable,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, databaseEngines, withDataSource } from '@verdict/testing-kit';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

/**
 * An order lookup whose resolver says which order it could not find in the model's own words (the documented
 * pattern, docs/evidence.md), on `engine`'s evidence tables; `test` proposes order ids and reads back their records.
 */
async function withOrderLookup(
  engine: DatabaseEngine,
  test: (lookup: (orderId: string) => Promise<{ disposition: string; recorded: unknown }>) => Promise<void>,
) {
  await withDataSource(engine, SCHEMA, async (dataSource) => {
    const fixture = documentsFixture();
    const lookup = defineCapability(
      {
        name: 'orders.lookup',
        description: 'Look an order up',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ orderId: z.string() }),
        resolveTarget: fromProposal<{ orderId: string }, { id: string }>(({ arguments: args }) =>
          TargetNotResolvable.throw(`no order ${args.orderId}`),
        ),
        executionTarget: fixture.refreshPolicy as never,
      },
      () => 'ran',
    );
    const evidence = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
    const query = new TypeOrmEvidenceQuery(dataSource);
    const { moduleRef } = await fixture.boot({ capabilities: [lookup], evidence, evidenceQuery: query });
    try {
      await test(async (orderId) => {
        const result = await moduleRef
          .get(ActionContextStore)
          .run(alice, () =>
            moduleRef.get(VerdictService).execute({ capability: 'orders.lookup', arguments: { orderId } }),
          );
        const [record] = await query.run(result.correlationId);
        return {
          disposition: result.decision.disposition,
          recorded: record && { disposition: record.disposition, reason: record.reason },
        };
      });
      // What was stored is what was hashed: the sealed chain verifies.
      await evidence.seal();
      expect((await evidence.verify()).map(({ intact }) => intact)).toEqual([true]);
    } finally {
      await moduleRef.close();
    }
  });
}

for (const engine of databaseEngines()) {
  describe(`a refusal whose reason holds the model's text [${engine.name}]`, () => {
    it('attack: a NUL or a 70,000-character order id is still answered as a deny and recorded as one', async () => {
      await withOrderLookup(engine, async (lookup) => {
        // PostgreSQL's text refuses U+0000: written as U+FFFD.
        expect(await lookup('A-2\u0000')).toEqual({
          disposition: 'deny',
          recorded: { disposition: 'deny', reason: 'no order A-2\ufffd' },
        });
        // MariaDB's text holds 64 KiB: cut to 4,096 characters, the last one '…'.
        const long = 'A-3 '.padEnd(70_000, 'x');
        const cut = `${`no order ${long}`.slice(0, 4_095)}…`;
        expect(await lookup(long)).toEqual({ disposition: 'deny', recorded: { disposition: 'deny', reason: cut } });
        expect(cut).toHaveLength(4_096);
      });
    });

    it('control: an ordinary reason, up to 4,096 characters, is stored exactly', async () => {
      await withOrderLookup(engine, async (lookup) => {
        for (const orderId of ['A-1 — ünïcödé 中文 😀', 'A-4 '.padEnd(4_096 - 'no order '.length, 'y')])
          expect(await lookup(orderId)).toEqual({
            disposition: 'deny',
            recorded: { disposition: 'deny', reason: `no order ${orderId}` },
          });
      });
    });
  });
}
