import { randomBytes } from 'node:crypto';
import type {
  ClaimRequest,
  ClaimResolutionRequest,
  ExecutionClaimStore,
} from '../execution-claims/execution-claim-store.interface.js';
import { ExecutionClaimStatus } from '../execution-claims/execution-claim-status.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A claim store under test. */
export interface ExecutionClaimStoreHarness {
  readonly store: ExecutionClaimStore;
  close(): Promise<void>;
}

const { Claimed, Completed, Indeterminate, Released } = ExecutionClaimStatus;

/**
 * The behaviour every {@link ExecutionClaimStore} adapter must share (docs/execution-claims-and-rate-limits.md): admission of a new
 * binding or a released claim only, refusals with the row's state, finalization only from `claimed`,
 * operator resolutions with `force` for a still-claimed claim and only of the status and attempt they expect, exactly one retry per release, and the
 * unresolved list. `setup` runs once before the suite and `close` once after it; each test uses
 * bindings of its own. Concurrency across OS processes is proven separately, with real processes.
 *
 * @example
 * describeExecutionClaimStoreContract('memory', async () => ({ store: new InMemoryExecutionClaimStore(), close: async () => {} }));
 */
export function describeExecutionClaimStoreContract(
  engineLabel: string,
  setup: () => Promise<ExecutionClaimStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`ExecutionClaimStore contract [${engineLabel}]`, () => {
    let harness: ExecutionClaimStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const store = () => harness.store;

    /** A claimed claim, and its request. */
    async function claimed(overrides: Partial<ClaimRequest> = {}) {
      const request = claimRequest(overrides);
      await expect(store().admit(request)).resolves.toEqual({
        admitted: true,
        claimId: request.candidateId,
        attempt: 1,
      });
      return request;
    }

    describe('admit', () => {
      it('admits a new binding: a claimed row with the candidate id, attempt 1 and no resolution', async () => {
        const request = claimRequest();

        expect(await store().admit(request)).toEqual({ admitted: true, claimId: request.candidateId, attempt: 1 });
        expect(await store().find(request.candidateId)).toEqual({
          id: request.candidateId,
          capability: request.capability,
          policy: request.policy,
          bindingFingerprint: request.bindingFingerprint,
          status: Claimed,
          attempt: 1,
          claimedAt: request.now,
          updatedAt: request.now,
          resolvedBy: null,
          operatorIdentity: null,
          resolutionReason: null,
          resolvedAt: null,
        });
      });

      it('refuses a duplicate while the claim is claimed, with its state, and changes nothing', async () => {
        const first = await claimed();
        const before = await store().find(first.candidateId);
        const duplicate = claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(60) });

        expect(await store().admit(duplicate)).toEqual({
          admitted: false,
          claimId: first.candidateId,
          status: Claimed,
          attempt: 1,
        });
        expect(await store().find(first.candidateId)).toEqual(before);
        expect(await store().find(duplicate.candidateId)).toBeNull();
      });

      it.each([
        [Completed, (s: ExecutionClaimStore, id: string) => s.complete(id, at(1))],
        [Indeterminate, (s: ExecutionClaimStore, id: string) => s.markIndeterminate(id, at(1))],
      ])('refuses a duplicate while the claim is %s', async (status, finish) => {
        const first = await claimed();
        expect(await finish(store(), first.candidateId)).toBe(true);

        const duplicate = claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(60) });
        expect(await store().admit(duplicate)).toEqual({
          admitted: false,
          claimId: first.candidateId,
          status,
          attempt: 1,
        });
        expect((await store().find(first.candidateId))?.status).toBe(status);
      });

      it('admits different bindings independently', async () => {
        const first = await claimed();
        const other = claimRequest({ capability: first.capability, policy: first.policy });

        expect(await store().admit(other)).toEqual({ admitted: true, claimId: other.candidateId, attempt: 1 });
      });

      it('admits exactly one of 20 concurrent requests for one binding', async () => {
        const bindingFingerprint = newFingerprint();
        const requests = Array.from({ length: 20 }, () => claimRequest({ bindingFingerprint }));
        const admissions = await Promise.all(requests.map((request) => store().admit(request)));

        const admitted = admissions.filter((admission) => admission.admitted);
        expect(admitted).toHaveLength(1);
        expect(new Set(admissions.map((admission) => admission.claimId))).toEqual(new Set([admitted[0]?.claimId]));
      });
    });

    describe('complete and markIndeterminate', () => {
      it('completes a claimed claim once; later finalizations answer false', async () => {
        const request = await claimed();

        expect(await store().complete(request.candidateId, at(5))).toBe(true);
        expect(await store().complete(request.candidateId, at(6))).toBe(false);
        expect(await store().markIndeterminate(request.candidateId, at(7))).toBe(false);
        expect(await store().find(request.candidateId)).toMatchObject({
          status: Completed,
          updatedAt: at(5),
          claimedAt: request.now,
        });
      });

      it('marks a claimed claim indeterminate once; later finalizations answer false', async () => {
        const request = await claimed();

        expect(await store().markIndeterminate(request.candidateId, at(5))).toBe(true);
        expect(await store().markIndeterminate(request.candidateId, at(6))).toBe(false);
        expect(await store().complete(request.candidateId, at(7))).toBe(false);
        expect(await store().find(request.candidateId)).toMatchObject({ status: Indeterminate, updatedAt: at(5) });
      });

      it('answers false for a claim an operator resolved while its executor ran, and keeps the resolution', async () => {
        const request = await claimed();
        const resolution = await store().resolve(resolutionRequest(request.candidateId, Released, { force: true }));
        expect(resolution.outcome).toBe('resolved');

        expect(await store().complete(request.candidateId, at(9))).toBe(false);
        expect(await store().markIndeterminate(request.candidateId, at(9))).toBe(false);
        expect(await store().find(request.candidateId)).toEqual(
          resolution.outcome === 'resolved' ? resolution.claim : null,
        );
      });

      it('answers false for an unknown claim id', async () => {
        expect(await store().complete(newClaimId(), at(1))).toBe(false);
        expect(await store().markIndeterminate(newClaimId(), at(1))).toBe(false);
      });
    });

    describe('resolve', () => {
      it('requires force for a still-claimed claim, and changes nothing', async () => {
        const request = await claimed();
        const before = await store().find(request.candidateId);

        expect(await store().resolve(resolutionRequest(request.candidateId, Released))).toEqual({
          outcome: 'force_required',
          claim: before,
        });
        expect(await store().find(request.candidateId)).toEqual(before);
      });

      it.each([Completed, Released] as const)(
        'resolves a claimed claim to %s with force, storing by, identity, reason, resolved_at',
        async (to) => {
          const request = await claimed();
          const resolution = resolutionRequest(request.candidateId, to, { force: true });
          const expected = {
            ...(await store().find(request.candidateId))!,
            status: to,
            updatedAt: resolution.now,
            resolvedBy: resolution.by,
            operatorIdentity: resolution.operatorIdentity,
            resolutionReason: resolution.reason,
            resolvedAt: resolution.now,
          };

          expect(await store().resolve(resolution)).toEqual({ outcome: 'resolved', claim: expected, from: Claimed });
          expect(await store().find(request.candidateId)).toEqual(expected);
        },
      );

      it.each([Completed, Released] as const)('resolves an indeterminate claim to %s without force', async (to) => {
        const request = await claimed();
        await store().markIndeterminate(request.candidateId, at(5));
        const resolution = resolutionRequest(request.candidateId, to);

        const outcome = await store().resolve(resolution);
        expect(outcome).toMatchObject({
          outcome: 'resolved',
          from: Indeterminate,
          claim: {
            id: request.candidateId,
            status: to,
            attempt: 1,
            resolvedBy: resolution.by,
            resolutionReason: resolution.reason,
          },
        });
        expect(Object.keys(outcome).sort()).toEqual(['claim', 'from', 'outcome']);
        expect(await store().find(request.candidateId)).toEqual(outcome.outcome === 'resolved' ? outcome.claim : null);
      });

      it.each([false, true])(
        'refuses to resolve a completed or released claim again (force: %s): invalid_state',
        async (force) => {
          const completed = await claimed();
          await store().complete(completed.candidateId, at(5));
          const released = await claimed();
          await store().resolve(resolutionRequest(released.candidateId, Released, { force: true }));

          for (const { candidateId } of [completed, released]) {
            const before = await store().find(candidateId);
            for (const to of [Completed, Released] as const) {
              expect(await store().resolve(resolutionRequest(candidateId, to, { force, by: 'operator:9' }))).toEqual({
                outcome: 'invalid_state',
                claim: before,
              });
            }
            expect(await store().find(candidateId)).toEqual(before);
          }
        },
      );

      it('answers not_found for an unknown claim id', async () => {
        expect(await store().resolve(resolutionRequest(newClaimId(), Released, { force: true }))).toEqual({
          outcome: 'not_found',
        });
      });

      it('resolves only the status and attempt it expects: a claim released and admitted again keeps its new attempt', async () => {
        const first = await claimed();
        const read = (await store().find(first.candidateId))!;
        // Meanwhile another operator released attempt 1 and the call was admitted again: attempt 2 runs.
        await store().resolve(resolutionRequest(first.candidateId, Released, { force: true, by: 'operator:8' }));
        await store().admit(claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(120) }));
        const running = await store().find(first.candidateId);
        expect(running).toMatchObject({ status: Claimed, attempt: 2 });

        const expected = { status: read.status, attempt: read.attempt };
        const stale = { ...resolutionRequest(first.candidateId, Released, { force: true }), expected };
        expect(await store().resolve(stale)).toEqual({ outcome: 'invalid_state', claim: running });
        expect(await store().find(first.candidateId)).toEqual(running);
        // Control: expecting what the claim is now, the resolution applies.
        const current = { ...stale, expected: { status: Claimed, attempt: 2 } };
        expect(await store().resolve(current)).toMatchObject({
          outcome: 'resolved',
          from: Claimed,
          claim: { attempt: 2 },
        });
      });
    });

    describe('a released claim', () => {
      it('is re-claimed once by the next admission: the same id, attempt 2; the duplicate after it is refused', async () => {
        const first = await claimed();
        await store().markIndeterminate(first.candidateId, at(5));
        await store().resolve(resolutionRequest(first.candidateId, Released));
        const retry = claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(120) });

        expect(await store().admit(retry)).toEqual({ admitted: true, claimId: first.candidateId, attempt: 2 });
        expect(await store().find(first.candidateId)).toMatchObject({
          status: Claimed,
          attempt: 2,
          claimedAt: at(120),
          updatedAt: at(120),
        });
        expect(await store().find(retry.candidateId)).toBeNull();
        const again = claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(121) });
        expect(await store().admit(again)).toEqual({
          admitted: false,
          claimId: first.candidateId,
          status: Claimed,
          attempt: 2,
        });
      });

      it('is finished only by its own attempt: the released attempt answers false and changes nothing', async () => {
        const first = await claimed();
        await store().markIndeterminate(first.candidateId, at(5));
        await store().resolve(resolutionRequest(first.candidateId, Released));
        await store().admit(claimRequest({ bindingFingerprint: first.bindingFingerprint, now: at(120) }));

        expect(await store().complete(first.candidateId, at(121), 1)).toBe(false);
        expect(await store().markIndeterminate(first.candidateId, at(121), 1)).toBe(false);
        expect(await store().find(first.candidateId)).toMatchObject({ status: Claimed, attempt: 2 });
        expect(await store().complete(first.candidateId, at(122), 2)).toBe(true);
        expect(await store().find(first.candidateId)).toMatchObject({ status: Completed, attempt: 2 });
      });

      it('counts attempts across releases: attempt 3 after a second release', async () => {
        const first = await claimed();
        for (const attempt of [2, 3]) {
          await store().resolve(resolutionRequest(first.candidateId, Released, { force: true }));
          const retry = claimRequest({ bindingFingerprint: first.bindingFingerprint });
          expect(await store().admit(retry)).toEqual({ admitted: true, claimId: first.candidateId, attempt });
        }
      });

      it('admits exactly one of 20 concurrent retries', async () => {
        const first = await claimed();
        await store().resolve(resolutionRequest(first.candidateId, Released, { force: true }));
        const retries = Array.from({ length: 20 }, () =>
          claimRequest({ bindingFingerprint: first.bindingFingerprint }),
        );
        const admissions = await Promise.all(retries.map((retry) => store().admit(retry)));

        expect(admissions.filter((admission) => admission.admitted)).toEqual([
          { admitted: true, claimId: first.candidateId, attempt: 2 },
        ]);
        expect(admissions.filter((admission) => !admission.admitted)).toHaveLength(19);
      });
    });

    describe('unresolved', () => {
      it('lists claimed and indeterminate claims only, oldest first', async () => {
        const capability = `contract.unresolved.${newClaimId()}`;
        const claimedLate = await claimed({ capability, now: at(30) });
        const indeterminate = await claimed({ capability, now: at(10) });
        await store().markIndeterminate(indeterminate.candidateId, at(40));
        const completed = await claimed({ capability, now: at(5) });
        await store().complete(completed.candidateId, at(41));
        const released = await claimed({ capability, now: at(1) });
        await store().resolve(resolutionRequest(released.candidateId, Released, { force: true }));
        const claimedEarly = await claimed({ capability, now: at(20) });

        const listed = (await store().unresolved()).filter((claim) => claim.capability === capability);
        expect(listed.map(({ id, status }) => ({ id, status }))).toEqual([
          { id: indeterminate.candidateId, status: Indeterminate },
          { id: claimedEarly.candidateId, status: Claimed },
          { id: claimedLate.candidateId, status: Claimed },
        ]);
        expect(listed[0]).toEqual(await store().find(indeterminate.candidateId));
      });
    });
  });
}

/** An instant `seconds` (and `ms`) after a fixed, leap-day origin. */
function at(seconds: number): Date {
  return new Date(Date.UTC(2024, 1, 29, 12, 0, 0, 123) + seconds * 1000);
}

function newClaimId(): string {
  return randomBytes(32).toString('base64url');
}

function newFingerprint(): string {
  return fingerprint({ capability: 'orders.refund', policy: 'once-per-order', binding: { orderId: newClaimId() } });
}

function claimRequest(overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    capability: 'orders.refund',
    policy: 'once-per-order',
    bindingFingerprint: newFingerprint(),
    candidateId: newClaimId(),
    now: at(0),
    ...overrides,
  };
}

function resolutionRequest(
  claimId: string,
  to: ClaimResolutionRequest['to'],
  overrides: { force?: boolean; by?: string } = {},
): ClaimResolutionRequest {
  return {
    claimId,
    to,
    by: overrides.by ?? 'operator:7',
    operatorIdentity: 'os:ops-oncall',
    reason: 'Ünïcode reason: "refund never reached the PSP"',
    force: overrides.force ?? false,
    now: at(300),
  };
}
