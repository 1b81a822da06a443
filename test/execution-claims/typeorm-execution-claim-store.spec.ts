import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { InMemoryExecutionClaimStore, OuterTransactionError, fingerprint, type ClaimRequest } from '@verdict/nestjs';
import { describeExecutionClaimStoreContract } from '@verdict/nestjs/testing';
import {
  ExecutionClaimEntity,
  TypeOrmExecutionClaimStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  countingStatements,
  databaseEngines,
  dropDataSource,
  expectKilledMidStatement,
  onceReconnected,
  openDataSource,
  remigrate,
  withDataSource,
} from '@verdict/testing-kit';
import { CreateExecutionClaims1795988797706 } from '../../packages/verdict/src/typeorm/migrations/1795988797706-create-execution-claims.js';

const TABLE = 'verdict_execution_claims';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeExecutionClaimStoreContract('memory', async () => ({
  store: new InMemoryExecutionClaimStore(),
  close: async () => {},
}));

for (const engine of databaseEngines()) {
  describeExecutionClaimStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmExecutionClaimStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmExecutionClaimStore [${engine.name}]`, () => {
    it('rejects with the database error, never a refusal, when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        const store = new TypeOrmExecutionClaimStore(dataSource);

        await expect(store.admit(claimRequest())).rejects.toThrow(/verdict_execution_claims/);
        await expect(store.complete(newId(), new Date())).rejects.toThrow(/verdict_execution_claims/);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses every write inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmExecutionClaimStore(dataSource);
          const existing = claimRequest();
          await store.admit(existing);
          const before = await store.find(existing.candidateId);
          const fresh = claimRequest();

          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.admit(fresh)).rejects.toThrow(OuterTransactionError);
            await expect(store.admit({ ...existing, candidateId: newId() })).rejects.toThrow(OuterTransactionError);
            await expect(store.complete(existing.candidateId, new Date())).rejects.toThrow(OuterTransactionError);
            await expect(store.markIndeterminate(existing.candidateId, new Date())).rejects.toThrow(
              OuterTransactionError,
            );
            const resolution = {
              claimId: existing.candidateId,
              to: 'released',
              by: 'operator:1',
              reason: 'test',
              force: true,
              now: new Date(),
            } as const;
            await expect(store.resolve(resolution)).rejects.toThrow(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.find(fresh.candidateId)).toBeNull();
          expect(await store.find(existing.candidateId)).toEqual(before);
          expect(await store.admit(fresh)).toEqual({ admitted: true, claimId: fresh.candidateId, attempt: 1 });
        });
      });

      it('refuses inside dataSource.transaction() too, with a typed error that says what to do', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmExecutionClaimStore(dataSource);
          const request = claimRequest();
          const outcome = dataSource.transaction(async () => store.admit(request));

          await expect(outcome).rejects.toMatchObject({
            code: 'VERDICT_OUTER_TRANSACTION',
            message: expect.stringMatching(/outside the transaction/),
          });
          expect(await store.find(request.candidateId)).toBeNull();
        });
      });
    } else {
      it('commits on a connection of its own: an application rollback does not undo an admission', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmExecutionClaimStore(dataSource);
          const request = claimRequest();
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            expect(await store.admit(request)).toMatchObject({ admitted: true });
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.find(request.candidateId)).toMatchObject({ status: 'claimed', attempt: 1 });
        });
      });

      it('admits, refuses and completes in one statement each (the refusal reads its state once more)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const statements = await countingStatements(dataSource);
          try {
            const store = new TypeOrmExecutionClaimStore(statements.dataSource);
            const request = claimRequest();

            expect(await statements.during(() => store.admit(request))).toBe(1);
            expect(await statements.during(() => store.complete(request.candidateId, new Date()))).toBe(1);
            expect(await statements.during(() => store.admit({ ...request, candidateId: newId() }))).toBe(2);
          } finally {
            await statements.dataSource.destroy();
          }
        });
      });

      it('rejects with the driver error when its connection is killed mid-admission; nothing was written', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          await expectKilledMidStatement(dataSource, {
            arrange: (pinned) => ({ store: new TypeOrmExecutionClaimStore(pinned), request: claimRequest() }),
            // An uncommitted row with the same binding: the admission waits on its lock.
            block: (blocker, { request }) =>
              blocker.manager.insert(ExecutionClaimEntity, { ...claimRow(request), id: newId() }),
            act: ({ store, request }) => store.admit(request),
            verify: async ({ store, request }) => {
              expect(await onceReconnected(() => store.find(request.candidateId))).toBeNull();
              expect(await store.admit(request)).toEqual({ admitted: true, claimId: request.candidateId, attempt: 1 });
            },
          });
        });
      });
    }
  });

  describe(`CreateExecutionClaims migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its indexes', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await remigrate(dataSource, new CreateExecutionClaims1795988797706(), TABLE);
        expect(table.indices.map((index) => [index.name, index.isUnique]).sort()).toEqual([
          ['idx_verdict_execution_claims_status_claimed_at', false],
          ['uq_verdict_execution_claims_binding', true],
        ]);
        const request = claimRequest();
        expect(await new TypeOrmExecutionClaimStore(dataSource).admit(request)).toMatchObject({ admitted: true });
      });
    });
  });
}

function newId(): string {
  return randomBytes(32).toString('base64url');
}

function claimRequest(): ClaimRequest {
  const binding = { orderId: newId() };
  return {
    capability: 'orders.refund',
    policy: 'once-per-order',
    bindingFingerprint: fingerprint({ capability: 'orders.refund', policy: 'once-per-order', binding }),
    candidateId: newId(),
    now: new Date('2024-02-29T12:00:00.123Z'),
  };
}

function claimRow(request: ClaimRequest): ExecutionClaimEntity {
  return {
    id: request.candidateId,
    capability: request.capability,
    policy: request.policy,
    bindingFingerprint: request.bindingFingerprint,
    status: 'claimed',
    attempt: 1,
    claimedAt: request.now,
    updatedAt: request.now,
    resolvedBy: null,
    operatorIdentity: null,
    resolutionReason: null,
    resolvedAt: null,
  };
}
