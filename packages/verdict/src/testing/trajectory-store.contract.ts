import { randomUUID } from 'node:crypto';
import { foldEffects } from '../forbidden-states/fold-effects.js';
import type { TrajectoryOutcome, TrajectoryStore } from '../forbidden-states/trajectory-store.interface.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { compileStateModel } from '../trajectory/index.js';
import type { Effect } from '../trajectory/index.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A trajectory store under test. */
export interface TrajectoryStoreHarness {
  readonly store: TrajectoryStore;
  close(): Promise<void>;
}

/** Three uploads of read data are allowed; the fourth would be forbidden. */
const UPLOADS = compileStateModel({
  initial: { read: false, uploads: 0 },
  transitions: [
    { when: { effect: 'read' }, set: { read: true } },
    { when: { effect: 'upload' }, requires: [{ field: 'read', equals: true }], add: { uploads: 1 } },
  ],
  forbidden: [{ id: 'too_many_uploads', all: [{ field: 'uploads', greater_than: 3 }] }],
});

const NOW = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 987));

/**
 * The behaviour every {@link TrajectoryStore} adapter must share (docs/evaluation.md, run time): a new
 * trajectory starts from the model's initial state; admitted advances are kept and folded further; a
 * refusal names the predicate and writes nothing; trajectories are isolated by fingerprint. Concurrency
 * across OS processes is proven separately, with real processes.
 *
 * @example
 * describeTrajectoryStoreContract('memory', async () => ({ store: new InMemoryTrajectoryStore(), close: async () => {} }));
 */
export function describeTrajectoryStoreContract(
  engineLabel: string,
  setup: () => Promise<TrajectoryStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`TrajectoryStore contract [${engineLabel}]`, () => {
    let harness: TrajectoryStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const advance = (trajectoryFingerprint: string, ...effects: Effect[]): Promise<TrajectoryOutcome> =>
      harness.store.advance({
        trajectoryFingerprint,
        initial: UPLOADS.initial,
        advance: foldEffects(UPLOADS, effects),
        now: NOW,
      });
    const fresh = () => fingerprint({ trajectory: randomUUID() });

    it('folds admitted effects onto the kept state and refuses the one that would reach a forbidden state', async () => {
      const trajectory = fresh();
      const outcomes = [await advance(trajectory, { effect: 'read' })];
      for (let i = 0; i < 4; i++) outcomes.push(await advance(trajectory, { effect: 'upload' }));

      expect(outcomes).toEqual([
        { admitted: true, position: 1 },
        { admitted: true, position: 2 },
        { admitted: true, position: 3 },
        { admitted: true, position: 4 },
        { admitted: false, violation: 'too_many_uploads' },
      ]);
    });

    it('writes nothing on a refusal: the trajectory continues from the last admitted state', async () => {
      const trajectory = fresh();
      await advance(trajectory, { effect: 'read' }, { effect: 'upload' }, { effect: 'upload' }, { effect: 'upload' });

      expect(await advance(trajectory, { effect: 'upload' })).toEqual({
        admitted: false,
        violation: 'too_many_uploads',
      });
      expect(await advance(trajectory, { effect: 'read' })).toEqual({ admitted: true, position: 2 });
    });

    it('refuses a call as a whole when any of its effects reaches a forbidden state', async () => {
      const trajectory = fresh();
      expect(
        await advance(trajectory, { effect: 'read' }, ...Array.from({ length: 4 }, () => ({ effect: 'upload' }))),
      ).toEqual({
        admitted: false,
        violation: 'too_many_uploads',
      });
      // Nothing of the refused call was kept: three uploads still fit.
      expect(
        await advance(trajectory, { effect: 'read' }, { effect: 'upload' }, { effect: 'upload' }, { effect: 'upload' }),
      ).toEqual({
        admitted: true,
        position: 1,
      });
    });

    it('keeps trajectories apart by fingerprint', async () => {
      const reading = fresh();
      const other = fresh();
      await advance(reading, { effect: 'read' });
      for (let i = 0; i < 3; i++) await advance(reading, { effect: 'upload' });

      // Without a read, uploads in another trajectory never count.
      for (let i = 0; i < 5; i++)
        expect(await advance(other, { effect: 'upload' })).toEqual({ admitted: true, position: i + 1 });
      expect(await advance(reading, { effect: 'upload' })).toEqual({ admitted: false, violation: 'too_many_uploads' });
    });
  });
}
