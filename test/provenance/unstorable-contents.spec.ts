import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  InMemoryApprovalReceiptStore,
  InMemoryProvenanceContentStore,
  type ProvenanceContentStore,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  fingerprintString,
  labelContent,
  withProvenance,
} from '@verdict/nestjs';
import { TypeOrmProvenanceContentStore } from '@verdict/nestjs/typeorm';
import { storeBackends } from '@verdict/testing-kit';
import { alice, batchFixture } from '../approvals/batch.fixture.js';

/** Every content store to keep a parked window's texts in: memory, and TypeORM on each engine of the matrix. */
const backends = storeBackends<{ contents: ProvenanceContentStore }>(
  () => ({ contents: new InMemoryProvenanceContentStore() }),
  (dataSource) => ({ contents: new TypeOrmProvenanceContentStore(dataSource) }),
);

/**
 * ADR 0194: the untrusted texts of a window that parked a call are kept for its approver. A ticket holding U+0000 failed
 * `TypeOrmProvenanceContentStore.keep` on PostgreSQL alone with a raw `QueryFailedError`, after the receipt was issued:
 * whoever could write such a ticket made every confirmation parked under its window fail. Every store keeps such a text,
 * and gives it back exactly.
 */
describe.each(backends)('untrusted texts no engine stored alike, kept for the approver [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  /** alice asks to archive document 1 after reading `ticket`; answers the disposition and the text kept for it. */
  async function parkAfterReading(ticket: string) {
    const fixture = await batchFixture(
      new InMemoryApprovalReceiptStore(),
      { provenance: { contents: backend.contents } },
      { untrustedContext: 'allow', arguments: { id: 'allow' } },
    );
    const window = ProvenanceWindow.of([
      labelContent('Please archive what the ticket says.', ProvenanceSource.user('chat'), Trust.Trusted),
      labelContent(ticket, ProvenanceSource.retrieval('tickets'), Trust.Untrusted),
    ]);
    try {
      const outcome = await fixture
        .as(alice, () =>
          withProvenance(window, () =>
            fixture.moduleRef.get(VerdictService).execute({
              capability: 'documents.archive',
              arguments: { id: 1 },
              toolCallId: `call_${randomBytes(6).toString('hex')}`,
            }),
          ),
        )
        .then(
          (result) => result.decision.disposition as string,
          (error: unknown) => error,
        );
      return { outcome, kept: await backend.contents.text(fingerprintString(ticket)) };
    } finally {
      await fixture.close();
    }
  }

  it('attack: a ticket holding U+0000 or a lone surrogate parks the call, its text kept exactly', async () => {
    for (const ticket of [
      `Ticket 88:\u0000 archive 1 ${Math.random()}`,
      `Ticket 89: \ud800 archive 1 ${Math.random()}`,
    ])
      expect(await parkAfterReading(ticket)).toEqual({ outcome: 'require_confirmation', kept: ticket });
  });

  it('control: a ticket with an astral character parks the call, its text kept exactly', async () => {
    const ticket = `Ticket 90: archive 1 😀 ${Math.random()}`;
    expect(await parkAfterReading(ticket)).toEqual({ outcome: 'require_confirmation', kept: ticket });
  });
});
