import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type ApproverProvenance, type ApproverSource, fingerprintString } from '@verdict/nestjs';
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

/** The agent's own answers after it read an untrusted tool result are untrusted items of the window too. */
const AGENT: ApproverSource = {
  kind: 'agent',
  name: 'agent',
  trust: 'untrusted',
  description: 'agent:agent (untrusted)',
};
const provenanceOf = (items: number): ApproverProvenance => ({
  observed: true,
  untrustedContext: true,
  untrustedSources: [AGENT],
  arguments: [],
  untrustedContent: Array.from({ length: items }, (_, i) => ({
    fingerprint: fingerprintString(`answer ${i}`),
    source: AGENT,
  })),
  summary: 'Untrusted content in context: agent:agent (untrusted).',
});

/** A long agent run parks a call whose summary is larger than MySQL's `text` (64 KiB): every engine keeps it. */
describe.each(databaseEngines().map((engine) => [engine.name, engine] as const))(
  'a call of a long agent run is parked with its whole provenance summary [%s]',
  (_name, engine) => {
    it('stores and reads back a summary of 1,000 untrusted items (about 180 KB)', async () => {
      const provenance = provenanceOf(1_000);
      expect(JSON.stringify(provenance).length).toBeGreaterThan(65_535);
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      try {
        const store = new TypeOrmReviewItemStore(dataSource);
        const now = new Date();
        const item = await store.park({
          id: `rvw_${randomBytes(8).toString('hex')}`,
          capability: 'orders.refund',
          arguments: { orderId: 1 },
          requestKey: 'call_1',
          bindingFingerprint: fingerprintString('binding'),
          principalFingerprint: fingerprintString('principal'),
          requesterKey: 'customer:72',
          tenant: 'acme',
          conversationId: 'conversation-1',
          reviewed: true,
          reason: 'Refunds are reviewed by staff.',
          description: null,
          subject: null,
          expiresAt: new Date(now.getTime() + 60_000),
          provenance,
          now,
        });
        expect((await store.find(item.id))?.provenance).toEqual(provenance);
      } finally {
        await dropDataSource(dataSource);
      }
    });
  },
);
