import { describe, expect, it } from '@jest/globals';
import {
  type ContainmentStore,
  InMemoryContainmentStore,
  OuterTransactionError,
  fingerprintString,
} from '@verdict/nestjs';
import { describeContainmentStoreContract } from '@verdict/nestjs/testing';
import {
  ContainmentEntity,
  TypeOrmContainmentStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, remigrate, withDataSource } from '@verdict/testing-kit';
import { CreateContainments1796000240000 } from '../../packages/verdict/src/typeorm/migrations/1796000240000-create-containments.js';

const TABLE = 'verdict_containments';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const engagement = () => ({
  scope: 'actor' as const,
  subject: fingerprintString(`customer:${Math.random()}`),
  reason: 'INC-1',
  engagedBy: 'operator:7',
  operatorIdentity: null,
  engagedAt: new Date('2024-02-29T23:59:59.987Z'),
});

describeContainmentStoreContract('memory', async () => ({
  store: new InMemoryContainmentStore(),
  close: async () => {},
}));

/** Release given the `engagedAt` of the engagement that was read (what `ContainmentService.release` passes). */
function describeConditionalRelease(
  label: string,
  withStore: (use: (store: ContainmentStore) => Promise<void>) => Promise<void>,
) {
  describe(`ContainmentStore.release with engagedAt [${label}]`, () => {
    it('attack: a release of an engagement read before the switch was released and engaged again keeps the newer engagement', async () => {
      await withStore(async (store) => {
        const read = engagement();
        await store.engage(read);
        await store.release(read);
        const newer = { ...read, engagedBy: 'operator:9', engagedAt: new Date(read.engagedAt.getTime() + 1) };
        await store.engage(newer);
        expect(await store.release(read, read.engagedAt)).toBe(false);
        expect((await store.active()).filter((c) => c.subject === read.subject)).toEqual([newer]);
        // Control: the engagement as read back now is released.
        const [current] = (await store.active()).filter((c) => c.subject === read.subject);
        expect(await store.release(current!, current!.engagedAt)).toBe(true);
        expect((await store.active()).filter((c) => c.subject === read.subject)).toEqual([]);
      });
    });
  });
}

describeConditionalRelease('memory', (use) => use(new InMemoryContainmentStore()));

for (const engine of databaseEngines()) {
  describeContainmentStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmContainmentStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describeConditionalRelease(engine.name, (use) =>
    withDataSource(engine, SCHEMA, (dataSource) => use(new TypeOrmContainmentStore(dataSource))),
  );

  describe(`TypeOrmContainmentStore [${engine.name}]`, () => {
    it('keeps one row per switch however often it is engaged', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmContainmentStore(dataSource);
        const containment = engagement();
        await Promise.all([store.engage(containment), store.engage(containment), store.engage(containment)]);
        expect(await dataSource.getRepository(ContainmentEntity).countBy({ subject: containment.subject })).toBe(1);
      });
    });

    it('rejects with the database error, never "not contained", when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        await expect(new TypeOrmContainmentStore(dataSource).active()).rejects.toThrow(/verdict_containments/);
      });
    });

    it('migrates down and up again', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await remigrate(dataSource, new CreateContainments1796000240000(), TABLE);
        const store = new TypeOrmContainmentStore(dataSource);
        const containment = engagement();
        expect(await store.engage(containment)).toEqual({ engaged: true, containment });
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to engage inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmContainmentStore(dataSource);
          const containment = engagement();
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.engage(containment)).rejects.toBeInstanceOf(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }
          expect(await dataSource.getRepository(ContainmentEntity).countBy({ subject: containment.subject })).toBe(0);
        });
      });
    }
  });
}
