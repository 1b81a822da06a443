import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  ExecutionClaimsService,
  InMemoryEvidenceRecorder,
  type ProvenanceRecord,
  ProvenanceRecordKind,
  ProvenanceSourceKind,
  Trust,
  fingerprint,
} from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmExecutionClaimStore,
  TypeOrmProvenanceLedger,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  columnCollations,
  databaseEngines,
  onOwnRunner,
  tableDefaultCollations,
  withDataSource,
} from '@verdict/testing-kit';
import { CompareClaimBatchAndCorrelationIdsExactly1797020000000 } from '../../packages/verdict/src/typeorm/migrations/1797020000000-compare-claim-batch-and-correlation-ids-exactly.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const NOW = new Date('2026-01-01T10:00:00.000Z');
/** A claim id as `newClaimId` draws them: base64url, so in both cases. */
const CLAIM_ID = 'claim_AbCdEfGh';

/**
 * The ids Verdict's TypeORM stores look rows up by compare exactly on every engine (ADR 0176): on MySQL/MariaDB the
 * server's default collation is case-insensitive and ignores trailing spaces, so before the migration
 * `CompareClaimBatchAndCorrelationIdsExactly1797020000000` an id in another case, or with a space after it, found,
 * resolved or decided the rows of another id there, and of no other engine.
 */
for (const engine of databaseEngines()) {
  describe(`Ids compare exactly [${engine.name}]`, () => {
    it('attack: a claim id in another case or with a trailing space finds no claim, and an operator resolves nothing with it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { store, claims } = await claimed(dataSource);

        const found = [CLAIM_ID.toLowerCase(), `${CLAIM_ID} `].map(async (id) => (await store.find(id))?.id ?? null);
        const resolution = await claims.resolve(CLAIM_ID.toUpperCase(), 'completed', 'operator:7', 'checked', true);

        expect(await Promise.all(found)).toEqual([null, null]);
        expect(resolution).toEqual({ outcome: 'not_found' });
        expect(await store.find(CLAIM_ID)).toMatchObject({ status: 'claimed', attempt: 1 });
      });
    });

    it('control: the claim id itself finds the claim, and an operator resolves it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { store, claims } = await claimed(dataSource);

        expect((await store.find(CLAIM_ID))?.id).toBe(CLAIM_ID);
        expect(await claims.resolve(CLAIM_ID, 'completed', 'operator:7', 'checked', true)).toMatchObject({
          outcome: 'resolved',
          claim: { id: CLAIM_ID, status: 'completed' },
        });
      });
    });

    it('attack: batch "B-1" holds its own receipts only, not those of batch "b-1", and is decided alone', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = await twoBatches(dataSource);

        const read = {
          upper: (await store.inBatch('B-1')).map((receipt) => receipt.id),
          padded: (await store.inBatch('b-1 ')).map((receipt) => receipt.id),
        };
        const decided = await store.decideBatch({
          batchId: 'B-1',
          items: [{ receiptId: 'rcpt_upper', toolCallId: 'call_upper', verdict: 'approve' }],
          by: 'operator:7',
          now: NOW,
        });

        expect(read).toEqual({ upper: ['rcpt_upper'], padded: [] });
        expect(decided.outcome).toBe('decided');
        expect((await store.find('rcpt_lower'))?.status).toBe('pending');
      });
    });

    it('control: batch "b-1" reads and decides its receipts', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = await twoBatches(dataSource);

        expect((await store.inBatch('b-1')).map((receipt) => receipt.id)).toEqual(['rcpt_lower']);
        const decided = await store.decideBatch({
          batchId: 'b-1',
          items: [{ receiptId: 'rcpt_lower', toolCallId: 'call_lower', verdict: 'reject' }],
          by: 'operator:7',
          now: NOW,
        });
        expect(decided.outcome).toBe('decided');
        expect((await store.find('rcpt_lower'))?.status).toBe('rejected');
      });
    });

    it("attack: a run's correlation id in another case or with a trailing space returns no provenance", async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const ledger = new TypeOrmProvenanceLedger(dataSource);
        const correlationId = randomUUID();
        await ledger.append([influence(correlationId)]);

        expect(await ledger.forCorrelation(correlationId.toUpperCase())).toEqual([]);
        expect(await ledger.forCorrelation(`${correlationId} `)).toEqual([]);
      });
    });

    it("control: a run's correlation id returns its provenance", async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const ledger = new TypeOrmProvenanceLedger(dataSource);
        const correlationId = randomUUID();
        const record = influence(correlationId);
        await ledger.append([record]);

        expect(await ledger.forCorrelation(correlationId)).toEqual([record]);
      });
    });

    it('CompareClaimBatchAndCorrelationIdsExactly keeps the rows on down and up, and compares exactly after up', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { store } = await claimed(dataSource);
        const receipts = await twoBatches(dataSource);
        const migration = new CompareClaimBatchAndCorrelationIdsExactly1797020000000();

        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));
        const afterDown = await collations(dataSource);
        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));

        expect(afterDown).toEqual(engine.name === 'mariadb' ? await defaultCollations(dataSource) : []);
        expect(await collations(dataSource)).toEqual(
          engine.name === 'mariadb' ? COLUMNS.map(([, column]) => [column, 'utf8mb4_nopad_bin']) : [],
        );
        expect((await store.find(CLAIM_ID))?.status).toBe('claimed');
        expect(await store.find(CLAIM_ID.toLowerCase())).toBeNull();
        expect((await receipts.inBatch('B-1')).map((receipt) => receipt.id)).toEqual(['rcpt_upper']);
      });
    });
  });
}

/** The columns the migration collates: table and column. */
const COLUMNS = [
  ['verdict_execution_claims', 'id'],
  ['verdict_approval_receipts', 'batch_id'],
  ['verdict_provenance_records', 'correlation_id'],
] as const;

/** Each collated column with its collation, in {@link COLUMNS}' order (none off MySQL/MariaDB). */
async function collations(dataSource: DataSource): Promise<Array<[string, string]>> {
  const each = await Promise.all(COLUMNS.map(([table, column]) => columnCollations(dataSource, table, [column])));
  return each.flat();
}

/** Each collated column with its table's default collation, in {@link COLUMNS}' order. */
async function defaultCollations(dataSource: DataSource): Promise<Array<[string, string]>> {
  const each = await Promise.all(COLUMNS.map(([table, column]) => tableDefaultCollations(dataSource, table, [column])));
  return each.flat();
}

/** Claim {@link CLAIM_ID} admitted (still `claimed`), its store, and the service an operator resolves it with. */
async function claimed(dataSource: DataSource) {
  const store = new TypeOrmExecutionClaimStore(dataSource);
  await store.admit({
    capability: 'refunds',
    policy: 'once',
    bindingFingerprint: fingerprint({ refund: 1 }),
    candidateId: CLAIM_ID,
    now: NOW,
  });
  const claims = new ExecutionClaimsService(
    { executionClaims: store, clock: () => NOW } as never,
    new InMemoryEvidenceRecorder(),
  );
  return { store, claims };
}

/** A pending receipt in batch `b-1` (`rcpt_lower`) and one in batch `B-1` (`rcpt_upper`), asked by the same caller. */
async function twoBatches(dataSource: DataSource): Promise<TypeOrmApprovalReceiptStore> {
  const store = new TypeOrmApprovalReceiptStore(dataSource);
  for (const [name, batch] of [
    ['lower', 'b-1'],
    ['upper', 'B-1'],
  ]) {
    await store.issue({
      toolCallId: `call_${name}`,
      capability: 'refunds',
      bindingFingerprint: fingerprint({ refund: name }),
      candidateId: `rcpt_${name}`,
      reason: 'Refunds need a second pair of eyes.',
      description: null,
      subject: null,
      expiresAt: new Date(NOW.getTime() + 3_600_000),
      now: NOW,
      batch: { id: batch, arguments: { refund: name } },
    });
  }
  return store;
}

/** One influence of the run `correlationId` on its proposal. */
function influence(correlationId: string): ProvenanceRecord {
  return {
    id: randomUUID(),
    kind: ProvenanceRecordKind.Influence,
    contentFingerprint: fingerprint({ content: correlationId }),
    sourceKind: ProvenanceSourceKind.Tool,
    sourceName: 'orders.view',
    trust: Trust.Untrusted,
    parentFingerprint: null,
    correlationId,
    capability: 'refunds.send',
    argumentPathFingerprint: null,
    recordedAt: NOW,
  };
}
