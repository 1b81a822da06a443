import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ExecutionClaimStatus, fingerprint } from '@verdict/nestjs';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { AddExecutionClaimOperatorIdentity1796000109000 } from '../../packages/verdict/src/typeorm/migrations/1796000109000-add-execution-claim-operator-identity.js';

const TABLE = 'verdict_execution_claims';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const newId = () => randomBytes(32).toString('base64url');

for (const engine of databaseEngines()) {
  describe(`AddExecutionClaimOperatorIdentity migration [${engine.name}]`, () => {
    it('drops operator_identity on down; up adds it again and a resolution stores who ran it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new AddExecutionClaimOperatorIdentity1796000109000();
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          expect((await queryRunner.getTable(TABLE))?.findColumnByName('operator_identity')).toBeUndefined();
          await migration.up(queryRunner);
          expect((await queryRunner.getTable(TABLE))?.findColumnByName('operator_identity')).toMatchObject({
            isNullable: true,
          });
        } finally {
          await queryRunner.release();
        }
        const store = new TypeOrmExecutionClaimStore(dataSource);
        const candidateId = newId();
        const now = new Date('2024-02-29T12:00:00.000Z');
        const bindingFingerprint = fingerprint({
          capability: 'orders.refund',
          policy: 'once-per-order',
          binding: { orderId: newId() },
        });
        await store.admit({
          capability: 'orders.refund',
          policy: 'once-per-order',
          bindingFingerprint,
          candidateId,
          now,
        });
        const to = ExecutionClaimStatus.Released;
        await store.resolve({
          claimId: candidateId,
          to,
          by: 'operator:7',
          operatorIdentity: 'os:ops',
          reason: 'never ran',
          force: true,
          now,
        });
        expect(await store.find(candidateId)).toMatchObject({ resolvedBy: 'operator:7', operatorIdentity: 'os:ops' });
      });
    });
  });
}
