import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import {
  ActionContextStore,
  type ContainmentStore,
  ContainmentService,
  InMemoryContainmentStore,
  OuterTransactionError,
  VerdictService,
  fingerprintString,
} from '@verdict/nestjs';
import { describeContainmentStoreContract } from '@verdict/nestjs/testing';
import {
  ContainmentEntity,
  TypeOrmContainmentStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  columnCollations,
  databaseEngines,
  dropDataSource,
  onOwnRunner,
  openDataSource,
  remigrate,
  tableDefaultCollations,
  withDataSource,
} from '@verdict/testing-kit';
import { CreateContainments1796000240000 } from '../../packages/verdict/src/typeorm/migrations/1796000240000-create-containments.js';
import { CompareContainmentsExactly1797015000000 } from '../../packages/verdict/src/typeorm/migrations/1797015000000-compare-containments-exactly.js';
import { bob, documentsFixture } from '../pipeline/documents.fixture.js';

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

    it('attack: switches off a capability whose name differs only in case from one already off, and releases each apart', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await capabilitySwitches(dataSource, async ({ containment, outcome }) => {
          const operator = { reason: 'INC-1', by: 'operator:7' };
          await containment.engage({ scope: 'capability', subject: 'Documents.read', ...operator });

          const engaged = await containment.engage({ scope: 'capability', subject: 'documents.read', ...operator });
          const whileBothOff = [await outcome('documents.read'), await outcome('Documents.read')];
          await containment.release({ scope: 'capability', subject: 'Documents.read', ...operator });

          expect({ engaged: engaged.engaged, subject: engaged.containment.subject }).toEqual({
            engaged: true,
            subject: 'documents.read',
          });
          expect(whileBothOff).toEqual(['deny@containment', 'deny@containment']);
          expect((await containment.list()).map((c) => c.subject)).toEqual(['documents.read']);
          expect([await outcome('documents.read'), await outcome('Documents.read')]).toEqual([
            'deny@containment',
            'executed',
          ]);
        });
      });
    });

    it('engaging a switch already on changes nothing and keeps the first engagement (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await capabilitySwitches(dataSource, async ({ containment, outcome }) => {
          await containment.engage({
            scope: 'capability',
            subject: 'documents.read',
            reason: 'INC-1',
            by: 'operator:7',
          });

          const again = await containment.engage({
            scope: 'capability',
            subject: 'documents.read',
            reason: 'INC-2',
            by: 'operator:9',
          });

          expect({ engaged: again.engaged, by: again.containment.engagedBy }).toEqual({
            engaged: false,
            by: 'operator:7',
          });
          expect((await containment.list()).map((c) => c.subject)).toEqual(['documents.read']);
          expect([await outcome('documents.read'), await outcome('Documents.read')]).toEqual([
            'deny@containment',
            'executed',
          ]);
        });
      });
    });

    it('CompareContainmentsExactly keeps the switches on down and up, and compares exactly after up', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmContainmentStore(dataSource);
        const containment = { ...engagement(), scope: 'capability' as const, subject: 'Documents.read' };
        await store.engage(containment);
        const migration = new CompareContainmentsExactly1797015000000();

        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));
        const afterDown = await columnCollations(dataSource, TABLE, KEY_COLUMNS);
        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));

        expect(afterDown).toEqual(
          engine.name === 'mariadb' ? await tableDefaultCollations(dataSource, TABLE, KEY_COLUMNS) : [],
        );
        expect(await columnCollations(dataSource, TABLE, KEY_COLUMNS)).toEqual(
          engine.name === 'mariadb' ? KEY_COLUMNS.map((column) => [column, 'utf8mb4_nopad_bin']) : [],
        );
        expect(await store.active()).toEqual([containment]);
        expect((await store.engage({ ...containment, subject: 'documents.read' })).engaged).toBe(true);
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

/**
 * The documents module with `documents.read` and a capability of the test's own named `Documents.read`, its kill
 * switches in `dataSource`, for `use`; `outcome` is what bob's read of his document comes to: `executed` or
 * `<disposition>@<stage>`.
 */
async function capabilitySwitches(dataSource: DataSource, use: (switches: CapabilitySwitches) => Promise<void>) {
  const fixture = documentsFixture();
  const shouting = fixture.documentCapability({ name: 'Documents.read', description: 'Read a document' }, () => 'read');
  const { moduleRef } = await fixture.boot({
    capabilities: [shouting],
    containment: { store: new TypeOrmContainmentStore(dataSource), cacheTtlMs: 0 },
  });
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const outcome = async (capability: string) => {
    const result = await contexts.run(bob, () => verdict.execute({ capability, arguments: { id: 2 } }));
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  try {
    await use({ containment: moduleRef.get(ContainmentService), outcome });
  } finally {
    await moduleRef.close();
  }
}

interface CapabilitySwitches {
  readonly containment: ContainmentService;
  readonly outcome: (capability: string) => Promise<string>;
}

/** The key columns the migration collates, by name. */
const KEY_COLUMNS = ['scope', 'subject'];
