import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { QueryFailedError } from 'typeorm';
import { type Containment, type TrajectoryRequest, fingerprint, fingerprintString } from '@verdict/nestjs';
import {
  ContainmentEntity,
  TrajectoryStateEntity,
  TypeOrmContainmentStore,
  TypeOrmTrajectoryStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, onOwnRunner, withDataSource } from '@verdict/testing-kit';
import { WidenTrajectoryStatesAndContainmentReasons1797030000000 } from '../../packages/verdict/src/typeorm/migrations/1797030000000-widen-trajectory-states-and-containment-reasons.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
/** Past 65,535 bytes: what MySQL/MariaDB's `text` holds. */
const LONG = 'x'.repeat(70_000);
/** The stored text of the state `{ note: LONG }`. */
const LONG_STATE = JSON.stringify({ note: LONG });

/** A call that sets the trajectory's state to `note`. */
const noting = (trajectoryFingerprint: string, note: string): TrajectoryRequest => ({
  trajectoryFingerprint,
  initial: {},
  advance: () => ({ state: { note }, violation: null }),
  now: new Date('2024-02-29T23:59:59.987Z'),
});

/** A call that counts itself in the trajectory's state. */
const counting = (trajectoryFingerprint: string): TrajectoryRequest => ({
  trajectoryFingerprint,
  initial: { n: 0 },
  advance: (state) => ({ state: { n: Number(state.n) + 1 }, violation: null }),
  now: new Date('2024-02-29T23:59:59.987Z'),
});

const engagement = (reason: string): Containment => ({
  scope: 'actor',
  subject: fingerprintString(`customer:${randomUUID()}`),
  reason,
  engagedBy: 'operator:7',
  operatorIdentity: null,
  engagedAt: new Date('2024-02-29T23:59:59.987Z'),
});

async function storedState(dataSource: DataSource, trajectoryFingerprint: string): Promise<string | undefined> {
  return (await dataSource.getRepository(TrajectoryStateEntity).findOneBy({ trajectoryFingerprint }))?.state;
}

/** Expects `text` to be `expected`, reporting a difference by length first (the texts are 70,000 characters). */
function expectWhole(text: string | undefined, expected: string): void {
  expect(text?.length).toBe(expected.length);
  expect(text === expected).toBe(true);
}

async function storedReason(dataSource: DataSource, { scope, subject }: Containment): Promise<string | undefined> {
  return (await dataSource.getRepository(ContainmentEntity).findOneBy({ scope, subject }))?.reason;
}

for (const engine of databaseEngines()) {
  describe(`Texts past 64 KiB in the TypeORM stores [${engine.name}]`, () => {
    it('attack: a first trajectory state past 64 KiB is stored whole, and the next call advances from it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmTrajectoryStore(dataSource);
        const trajectory = fingerprint({ trajectory: randomUUID() });

        expect(await store.advance(noting(trajectory, LONG))).toEqual({ admitted: true, position: 1 });
        expectWhole(await storedState(dataSource, trajectory), LONG_STATE);
        expect(await store.advance(noting(trajectory, 'short'))).toEqual({ admitted: true, position: 2 });
      });
    });

    it('attack: a later trajectory state past 64 KiB is admitted and stored whole', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmTrajectoryStore(dataSource);
        const trajectory = fingerprint({ trajectory: randomUUID() });
        await store.advance(noting(trajectory, 'short'));

        expect(await store.advance(noting(trajectory, LONG))).toEqual({ admitted: true, position: 2 });
        expectWhole(await storedState(dataSource, trajectory), LONG_STATE);
      });
    });

    it('attack: a kill switch reason past 64 KiB is stored and read back whole', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmContainmentStore(dataSource);
        const containment = engagement(LONG);

        expect(await store.engage(containment)).toEqual({ engaged: true, containment });
        expectWhole((await store.active()).find((kept) => kept.subject === containment.subject)?.reason, LONG);
      });
    });

    it('attack: a reason the column cannot hold (before the migration) rejects as QueryFailedError, never cut short', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new WidenTrajectoryStatesAndContainmentReasons1797030000000();
        const store = new TypeOrmContainmentStore(dataSource);
        const containment = engagement(LONG);
        const trajectory = fingerprint({ trajectory: randomUUID() });
        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));

        const engaged = store.engage(containment);
        const advanced = new TypeOrmTrajectoryStore(dataSource).advance(noting(trajectory, LONG));

        if (engine.name === 'mariadb') {
          await expect(engaged).rejects.toBeInstanceOf(QueryFailedError);
          await expect(advanced).rejects.toBeInstanceOf(QueryFailedError);
          expect(await storedReason(dataSource, containment)).toBeUndefined();
          expect(await storedState(dataSource, trajectory)).toBeUndefined();
        } else {
          // `text` holds any length there: the migration changes nothing.
          expect(await engaged).toEqual({ engaged: true, containment });
          expect(await advanced).toEqual({ admitted: true, position: 1 });
        }
      });
    });

    it('migrates down and up again, keeping the rows, and holds texts past 64 KiB after up', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new WidenTrajectoryStatesAndContainmentReasons1797030000000();
        const trajectories = new TypeOrmTrajectoryStore(dataSource);
        const containments = new TypeOrmContainmentStore(dataSource);
        const trajectory = fingerprint({ trajectory: randomUUID() });
        const kept = engagement('INC-1');
        await trajectories.advance(noting(trajectory, 'short'));
        await containments.engage(kept);

        await onOwnRunner(dataSource, (queryRunner) => migration.down(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => migration.up(queryRunner));

        expect(await storedState(dataSource, trajectory)).toBe('{"note":"short"}');
        expect(await storedReason(dataSource, kept)).toBe('INC-1');
        expect(await trajectories.advance(noting(trajectory, LONG))).toEqual({ admitted: true, position: 2 });
        expectWhole(await storedState(dataSource, trajectory), LONG_STATE);
      });
    });

    it('control: first advances of one trajectory racing are each admitted once, in turn', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const trajectory = fingerprint({ trajectory: randomUUID() });
        const stores = Array.from({ length: 6 }, () => new TypeOrmTrajectoryStore(dataSource));

        const outcomes = await Promise.all(stores.map((store) => store.advance(counting(trajectory))));

        expect(outcomes.map((outcome) => (outcome.admitted ? outcome.position : 0)).sort()).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await storedState(dataSource, trajectory)).toBe('{"n":6}');
      });
    });

    it('control: engaging a switch engaged already keeps the first engagement and reports it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmContainmentStore(dataSource);
        const first = engagement('INC-1');
        const again = { ...first, reason: 'INC-2', engagedBy: 'operator:9' };

        const outcomes = await Promise.all([store.engage(first), store.engage(again)]);

        expect(outcomes.filter((outcome) => outcome.engaged)).toHaveLength(1);
        const [winner] = outcomes.filter((outcome) => outcome.engaged).map((outcome) => outcome.containment);
        expect(outcomes.find((outcome) => !outcome.engaged)?.containment).toEqual(winner);
        expect(await storedReason(dataSource, first)).toBe(winner!.reason);
        expect(await store.engage(first)).toEqual({ engaged: false, containment: winner });
      });
    });
  });
}
