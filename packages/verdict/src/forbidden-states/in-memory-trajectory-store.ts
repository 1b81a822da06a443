import type { TrajectoryState } from '../trajectory/index.js';
import type { TrajectoryOutcome, TrajectoryRequest, TrajectoryStore } from './trajectory-store.interface.js';

/** Trajectory states in process memory: for tests and single-process development only. */
export class InMemoryTrajectoryStore implements TrajectoryStore {
  private readonly states = new Map<string, { state: TrajectoryState; position: number }>();

  async advance({ trajectoryFingerprint, initial, advance }: TrajectoryRequest): Promise<TrajectoryOutcome> {
    const current = this.states.get(trajectoryFingerprint) ?? { state: initial, position: 0 };
    const next = advance(current.state);
    if (next.violation !== null) return { admitted: false, violation: next.violation };
    const position = current.position + 1;
    this.states.set(trajectoryFingerprint, { state: next.state, position });
    return { admitted: true, position };
  }
}
