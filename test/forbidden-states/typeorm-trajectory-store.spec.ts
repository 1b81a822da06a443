import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  InMemoryTrajectoryStore,
  OuterTransactionError,
  compileStateModel,
  fingerprint,
  foldEffects,
} from '@verdict/nestjs';
import { describeTrajectoryStoreContract } from '@verdict/nestjs/testing';
import {
  TrajectoryStateEntity,
  TypeOrmTrajectoryStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, remigrate, withDataSource } from '@verdict/testing-kit';
import { CreateTrajectoryStates1796000000001 } from '../../packages/verdict/src/typeorm/migrations/1796000000001-create-trajectory-states.js';

const TABLE = 'verdict_trajectory_states';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const COUNTER = compileStateModel({
  initial: { count: 0 },
  transitions: [{ when: { effect: 'tick' }, add: { count: 1 } }],
  forbidden: [{ id: 'too_many', all: [{ field: 'count', greater_than: 2 }] }],
});
const tick = (trajectoryFingerprint: string) => ({
  trajectoryFingerprint,
  initial: COUNTER.initial,
  advance: foldEffects(COUNTER, [{ effect: 'tick' }]),
  now: new Date('2024-02-29T23:59:59.987Z'),
});

describeTrajectoryStoreContract('memory', async () => ({
  store: new InMemoryTrajectoryStore(),
  close: async () => {},
}));

for (const engine of databaseEngines()) {
  describeTrajectoryStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmTrajectoryStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmTrajectoryStore [${engine.name}]`, () => {
    it('keeps the folded state as canonical JSON and the number of admitted calls as its version', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmTrajectoryStore(dataSource);
        const trajectory = fingerprint({ trajectory: randomUUID() });
        await store.advance(tick(trajectory));
        await store.advance(tick(trajectory));
        await store.advance(tick(trajectory));

        const rows = await dataSource
          .getRepository(TrajectoryStateEntity)
          .findBy({ trajectoryFingerprint: trajectory });
        expect(rows.map(({ state, version, updatedAt }) => ({ state, version, updatedAt }))).toEqual([
          { state: '{"count":2}', version: 2, updatedAt: new Date('2024-02-29T23:59:59.987Z') },
        ]);
      });
    });

    it('rejects with the database error, never a denial, when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        await expect(
          new TypeOrmTrajectoryStore(dataSource).advance(tick(fingerprint({ trajectory: randomUUID() }))),
        ).rejects.toThrow(/verdict_trajectory_states/);
      });
    });

    it('migrates down and up again', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await remigrate(dataSource, new CreateTrajectoryStates1796000000001(), TABLE);
        expect(
          await new TypeOrmTrajectoryStore(dataSource).advance(tick(fingerprint({ trajectory: randomUUID() }))),
        ).toEqual({ admitted: true, position: 1 });
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to advance inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmTrajectoryStore(dataSource);
          const trajectory = fingerprint({ trajectory: randomUUID() });
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.advance(tick(trajectory))).rejects.toBeInstanceOf(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }
          expect(
            await dataSource.getRepository(TrajectoryStateEntity).countBy({ trajectoryFingerprint: trajectory }),
          ).toBe(0);
        });
      });
    }
  });
}
