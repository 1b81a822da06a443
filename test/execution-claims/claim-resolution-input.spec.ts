import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ExecutionClaimStore,
  ExecutionClaimStatus,
  ExecutionClaimsService,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const NOW = new Date('2026-01-01T10:00:00.000Z');
const BINDING = 'a'.repeat(64);

/** The service an admin screen calls, on `store`, and the evidence it records. */
function service(store: ExecutionClaimStore) {
  const evidence = new InMemoryEvidenceRecorder();
  const claims = new ExecutionClaimsService({ executionClaims: store, clock: () => NOW } as never, evidence);
  return { claims, evidence };
}

/** A claim admitted on `store` for `binding`: still `claimed` (its executor may be running). */
async function admitted(store: ExecutionClaimStore, id: string, binding = BINDING): Promise<string> {
  await store.admit({ capability: 'refunds', policy: 'p', bindingFingerprint: binding, candidateId: id, now: NOW });
  return id;
}

/** The admission an executor would ask for next, of the same operation. */
const nextAdmission = (store: ExecutionClaimStore, binding = BINDING) =>
  store.admit({ capability: 'refunds', policy: 'p', bindingFingerprint: binding, candidateId: 'claim_next', now: NOW });

describe('ExecutionClaimsService.resolve with untyped input (an admin screen’s form fields)', () => {
  it.each([
    ['the string "false"', 'false'],
    ['the string "true"', 'true'],
    ['1', 1],
    ['null', null],
  ])(
    'attack: force as %s is a VerdictConfigurationError; the claimed claim stays claimed and nothing is recorded',
    async (_name, force) => {
      const store = new InMemoryExecutionClaimStore();
      const { claims, evidence } = service(store);
      const id = await admitted(store, 'claim_1');

      await expect(claims.resolve(id, 'retryable', 'operator:7', 'checked', force as never)).rejects.toThrow(
        VerdictConfigurationError,
      );

      expect(await store.find(id)).toMatchObject({ status: 'claimed', attempt: 1 });
      expect(evidence.decisions()).toEqual([]);
      // The operation is still held: attempt 1 may be running, so no second executor is admitted.
      expect(await nextAdmission(store)).toMatchObject({ admitted: false, status: 'claimed' });
    },
  );

  it('control: force true resolves a claimed claim; force omitted or false still asks for it', async () => {
    const store = new InMemoryExecutionClaimStore();
    const { claims } = service(store);
    const id = await admitted(store, 'claim_1');

    expect((await claims.resolve(id, 'retryable', 'operator:7', 'checked')).outcome).toBe('force_required');
    expect((await claims.resolve(id, 'retryable', 'operator:7', 'checked', false)).outcome).toBe('force_required');
    expect(await claims.resolve(id, 'retryable', 'operator:7', 'checked', true)).toMatchObject({
      outcome: 'resolved',
      from: 'claimed',
      claim: { status: 'released' },
    });
    expect(await nextAdmission(store)).toEqual({ admitted: true, claimId: id, attempt: 2 });
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['blank', '  '],
    ['a number', 1],
  ])('attack: a claim id that is %s is a VerdictConfigurationError, recording nothing', async (_name, claimId) => {
    const store = new InMemoryExecutionClaimStore();
    const { claims, evidence } = service(store);
    const id = await admitted(store, 'claim_1');
    await store.markIndeterminate(id, NOW, 1);

    await expect(claims.resolve(claimId as never, 'retryable', 'operator:7', 'no id')).rejects.toThrow(
      VerdictConfigurationError,
    );
    expect(await store.find(id)).toMatchObject({ status: 'indeterminate' });
    expect(evidence.decisions()).toEqual([]);
  });
});

describe.each(databaseEngines().map((engine) => [engine.name, engine] as const))(
  "a missing claim id on TypeORM with invalidWhereValuesBehavior 'ignore' [%s]",
  (_name, engine) => {
    let dataSource: DataSource;
    beforeAll(async () => {
      dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      // The option TypeORM's own error message suggests: a null or undefined where-value is dropped, not refused.
      Object.assign(dataSource.options, { invalidWhereValuesBehavior: { null: 'ignore', undefined: 'ignore' } });
    });
    afterAll(async () => dataSource && dropDataSource(dataSource));

    it('attack: resolve(null) is a VerdictConfigurationError; the only claim is not released', async () => {
      const store = new TypeOrmExecutionClaimStore(dataSource);
      const { claims, evidence } = service(store);
      const binding = 'b'.repeat(64);
      const id = await admitted(store, 'claim_null', binding);
      await store.markIndeterminate(id, NOW, 1);

      await expect(claims.resolve(null as never, 'retryable', 'operator:7', 'no id')).rejects.toThrow(
        VerdictConfigurationError,
      );

      expect(await store.find(id)).toMatchObject({ status: 'indeterminate', attempt: 1 });
      expect(evidence.decisions()).toEqual([]);
      expect(await nextAdmission(store, binding)).toMatchObject({ admitted: false, status: 'indeterminate' });
    });

    it('attack: the store itself finds no claim for a null or undefined id', async () => {
      const store = new TypeOrmExecutionClaimStore(dataSource);
      await admitted(store, 'claim_store', 'c'.repeat(64));

      expect(await store.find(null as never)).toBeNull();
      expect(await store.find(undefined as never)).toBeNull();
      expect(
        await store.resolve({
          claimId: null as never,
          to: ExecutionClaimStatus.Released,
          by: 'operator:7',
          reason: 'no id',
          force: true,
          now: NOW,
        }),
      ).toEqual({ outcome: 'not_found' });
      expect(await store.find('claim_store')).toMatchObject({ status: 'claimed' });
    });

    it('control: a claim resolved by its id is released and admitted again as attempt 2', async () => {
      const store = new TypeOrmExecutionClaimStore(dataSource);
      const { claims } = service(store);
      const binding = 'd'.repeat(64);
      const id = await admitted(store, 'claim_ok', binding);
      await store.markIndeterminate(id, NOW, 1);

      expect(await claims.resolve(id, 'retryable', 'operator:7', 'the PSP never got it')).toMatchObject({
        outcome: 'resolved',
        from: 'indeterminate',
        claim: { id, status: 'released' },
      });
      expect(await nextAdmission(store, binding)).toEqual({ admitted: true, claimId: id, attempt: 2 });
    });
  },
);
