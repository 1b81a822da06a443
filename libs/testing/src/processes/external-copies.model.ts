/**
 * The state model the trajectory races fold: each upload to an external destination adds one copy, and
 * more than `allowed` copies is the forbidden state `too_many_copies`. Of racing calls on one fresh
 * trajectory, exactly `allowed` may be admitted.
 *
 * @example startGateWorkers(...).advanceTrajectory({ stateModel: externalCopiesModel(3), effect: { effect: 'upload', destination: 'external:x' }, ... })
 */
export function externalCopiesModel(allowed: number) {
  return {
    initial: { copies: 0 },
    transitions: [{ when: { effect: 'upload', destination: 'external:*' }, add: { copies: 1 } }],
    forbidden: [{ id: 'too_many_copies', all: [{ field: 'copies', greater_than: allowed }] }],
  };
}
