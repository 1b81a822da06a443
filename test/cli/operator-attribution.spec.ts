import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  type DecisionRecord,
  type ExecutionClaimStore,
  ExecutionClaimsService,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  VerdictConfigurationError,
  fingerprintString,
} from '@verdict/nestjs';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const TOO_LONG = `sso:${'x'.repeat(252)}`; // 256 characters: the columns hold 255
const LONGEST = `sso:${'x'.repeat(251)}`; // 255 characters

for (const engine of databaseEngines()) {
  describe(`operator attribution of a claim resolution [${engine.name}]`, () => {
    let dataSource: DataSource;
    let store: TypeOrmExecutionClaimStore;
    beforeAll(async () => {
      dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      store = new TypeOrmExecutionClaimStore(dataSource);
    });
    afterAll(async () => {
      if (dataSource !== undefined) await dropDataSource(dataSource);
    });

    /** An indeterminate claim (resolvable without --force), the service, and its evidence. */
    async function setup() {
      const claimId = randomUUID();
      await store.admit({
        capability: 'jobs.run',
        policy: 'once-per-job',
        bindingFingerprint: fingerprintString(claimId),
        candidateId: claimId,
        now: NOW,
      });
      await store.markIndeterminate(claimId, NOW);
      const evidence = new InMemoryEvidenceRecorder();
      const claims = new ExecutionClaimsService({ executionClaims: store, clock: () => NOW } as never, evidence);
      const unchanged = async () => {
        expect(await store.find(claimId)).toMatchObject({
          status: 'indeterminate',
          resolvedBy: null,
          operatorIdentity: null,
          resolutionReason: null,
        });
        expect(evidence.decisions()).toEqual([]);
      };
      return { claimId, claims, evidence, unchanged };
    }

    it.each([
      ['blank', ''],
      ['non-string', 8812 as unknown as string],
      ['whitespace', '   '],
      ['longer than 255 characters', TOO_LONG],
    ])('refuses a %s operator identity with a typed error, before anything changes', async (_, identity) => {
      const { claimId, claims, unchanged } = await setup();
      await expect(
        claims.resolve(claimId, 'retryable', 'operator:7', 'the job never ran', false, identity),
      ).rejects.toBeInstanceOf(VerdictConfigurationError);
      await unchanged();
    });

    it('refuses a --by longer than 255 characters with a typed error, before anything changes', async () => {
      const { claimId, claims, unchanged } = await setup();
      await expect(
        claims.resolve(claimId, 'retryable', `operator:${'7'.repeat(247)}`, 'the job never ran', false, 'sso:8812'),
      ).rejects.toBeInstanceOf(VerdictConfigurationError);
      await unchanged();
    });

    it.each(['complete', 'released', 'Completed', ''])(
      'refuses a choice that is neither completed nor retryable (%j) with a typed error, before anything changes: a typo never re-opens the operation',
      async (choice) => {
        const { claimId, claims, unchanged } = await setup();
        await expect(
          claims.resolve(claimId, choice as 'completed', 'operator:7', 'carrier confirmed delivery'),
        ).rejects.toBeInstanceOf(VerdictConfigurationError);
        await unchanged();
      },
    );

    it('keeps --by and the operator identity apart in the evidence, whatever --by says', async () => {
      const { claimId, claims, evidence } = await setup();
      await claims.resolve(
        claimId,
        'retryable',
        'operator:7 (run by sso:ceo)',
        'the job never ran',
        false,
        'os:mallory',
      );
      expect(await store.find(claimId)).toMatchObject({
        status: 'released',
        resolvedBy: 'operator:7 (run by sso:ceo)',
        operatorIdentity: 'os:mallory',
      });
      expect(evidence.decisions().map((record) => record.reason)).toEqual([
        'operator "operator:7 (run by sso:ceo)" (run by "os:mallory") resolved indeterminate as retryable: the job never ran',
      ]);
    });

    it('records a 255-character identity as it is (control)', async () => {
      const { claimId, claims, evidence } = await setup();
      const resolution = await claims.resolve(claimId, 'retryable', 'operator:7', 'the job never ran', false, LONGEST);
      expect(resolution.outcome).toBe('resolved');
      expect(await store.find(claimId)).toMatchObject({
        status: 'released',
        resolvedBy: 'operator:7',
        operatorIdentity: LONGEST,
      });
      expect(evidence.decisions()[0].reason).toContain(JSON.stringify(LONGEST));
    });

    it('attack: a resolution whose evidence cannot be written does not happen: the claim stays indeterminate', async () => {
      const { claimId, evidence } = await setup();
      const failing = Object.assign(Object.create(evidence) as InMemoryEvidenceRecorder, {
        recordDecision: () => Promise.reject(new Error('evidence database down')),
      });
      const claims = new ExecutionClaimsService({ executionClaims: store, clock: () => NOW } as never, failing);
      await expect(claims.resolve(claimId, 'retryable', 'operator:7', 'the job never ran')).rejects.toThrow(
        'evidence database down',
      );
      expect(await store.find(claimId)).toMatchObject({ status: 'indeterminate', resolvedBy: null });
      // Control: once the evidence can be written, the same resolution goes through, recorded.
      const working = new ExecutionClaimsService({ executionClaims: store, clock: () => NOW } as never, evidence);
      expect((await working.resolve(claimId, 'retryable', 'operator:7', 'the job never ran')).outcome).toBe('resolved');
      expect(evidence.decisions()).toEqual([
        expect.objectContaining({ toolKind: 'operator', claimStatus: 'released', claimAttempt: 1 }),
      ]);
    });

    it('records that a resolution did not apply when the claim finished between its read and its update', async () => {
      const claimId = randomUUID();
      await store.admit({
        capability: 'jobs.run',
        policy: 'once-per-job',
        bindingFingerprint: fingerprintString(claimId),
        candidateId: claimId,
        now: NOW,
      });
      const evidence = new InMemoryEvidenceRecorder();
      // The executor completes the claim right after the operator's read.
      const racing = Object.assign(Object.create(store) as TypeOrmExecutionClaimStore, {
        find: async (id: string) => {
          const found = await store.find(id);
          await store.complete(id, NOW);
          return found;
        },
      });
      const claims = new ExecutionClaimsService({ executionClaims: racing, clock: () => NOW } as never, evidence);
      const resolution = await claims.resolve(claimId, 'retryable', 'operator:7', 'looks stuck', true);
      expect(resolution.outcome).toBe('invalid_state');
      expect(await store.find(claimId)).toMatchObject({ status: 'completed', resolvedBy: null });
      expect(evidence.decisions().map((record) => [record.reason, record.claimStatus])).toEqual([
        ['operator "operator:7" resolved claimed as retryable: looks stuck', 'released'],
        ['operator "operator:7"\'s resolution of claimed did not apply: the claim is completed', 'completed'],
      ]);
    });

    /**
     * A forced resolution of claim `claimId`, whose first evidence record lets `meanwhile` run first: what another
     * operator and a redelivered call do between this operator's read and their update.
     */
    async function resolveWhile(claimStore: ExecutionClaimStore, claimId: string, meanwhile: () => Promise<void>) {
      const evidence = new InMemoryEvidenceRecorder();
      let raced = false;
      const racing = Object.assign(Object.create(evidence) as InMemoryEvidenceRecorder, {
        recordDecision: async (record: DecisionRecord) => {
          if (!raced) await meanwhile();
          raced = true;
          return evidence.recordDecision(record);
        },
      });
      const claims = new ExecutionClaimsService({ executionClaims: claimStore, clock: () => NOW } as never, racing);
      const resolution = await claims.resolve(claimId, 'retryable', 'operator:B', 'stuck attempt 1', true);
      return { resolution, evidence };
    }

    /** A stuck claim (`claimed`, attempt 1) in `claimStore`, and how to admit its operation again. */
    async function stuck(claimStore: ExecutionClaimStore) {
      const claimId = randomUUID();
      const request = {
        capability: 'jobs.run',
        policy: 'once-per-job',
        bindingFingerprint: fingerprintString(claimId),
        candidateId: claimId,
        now: NOW,
      };
      await claimStore.admit(request);
      return { claimId, admit: () => claimStore.admit({ ...request, candidateId: randomUUID() }) };
    }

    it.each([
      ['this engine', () => store],
      ['memory', () => new InMemoryExecutionClaimStore()],
    ])(
      'attack (%s): a resolution never releases an attempt admitted after the operator read the claim (no second execution)',
      async (_, claimStore) => {
        const claims = claimStore();
        const { claimId, admit } = await stuck(claims);
        const { resolution, evidence } = await resolveWhile(claims, claimId, async () => {
          // Operator A releases attempt 1; the redelivered call is admitted as attempt 2, whose executor now runs.
          await claims.resolve({ claimId, to: 'released', by: 'operator:A', reason: 'retry', force: true, now: NOW });
          expect(await admit()).toMatchObject({ admitted: true, attempt: 2 });
        });
        expect(resolution.outcome).toBe('invalid_state');
        expect(await claims.find(claimId)).toMatchObject({ status: 'claimed', attempt: 2 });
        // While attempt 2 runs, its operation is refused: it is never executed twice.
        expect(await admit()).toMatchObject({ admitted: false, status: 'claimed', attempt: 2 });
        expect(evidence.decisions().map((record) => [record.reason, record.claimAttempt])).toEqual([
          ['operator "operator:B" resolved claimed as retryable: stuck attempt 1', 1],
          ['operator "operator:B"\'s resolution of claimed did not apply: the claim is claimed', 2],
        ]);
      },
    );

    it.each([
      ['this engine', () => store],
      ['memory', () => new InMemoryExecutionClaimStore()],
    ])('control (%s): a forced resolution of the attempt the operator read releases it', async (_, claimStore) => {
      const claims = claimStore();
      const { claimId, admit } = await stuck(claims);
      const { resolution, evidence } = await resolveWhile(claims, claimId, async () => undefined);
      expect(resolution).toMatchObject({ outcome: 'resolved', from: 'claimed', claim: { attempt: 1 } });
      expect(await admit()).toMatchObject({ admitted: true, attempt: 2 });
      expect(evidence.decisions().map((record) => record.reason)).toEqual([
        'operator "operator:B" resolved claimed as retryable: stuck attempt 1',
      ]);
    });

    it('records no identity when the caller (an admin screen without one) passes none (control)', async () => {
      const { claimId, claims, evidence } = await setup();
      await claims.resolve(claimId, 'completed', 'operator:7', 'export file found');
      expect(await store.find(claimId)).toMatchObject({
        status: 'completed',
        resolvedBy: 'operator:7',
        operatorIdentity: null,
      });
      expect(evidence.decisions().map((record) => record.reason)).toEqual([
        'operator "operator:7" resolved indeterminate as completed: export file found',
      ]);
    });
  });
}
