import type { Containment, ContainmentKey } from './containment.js';
import type { ContainmentEngagement, ContainmentStore } from './containment-store.interface.js';

/** Kill switches in process memory: for tests and single-process development only (`verdict validate` reports it). */
export class InMemoryContainmentStore implements ContainmentStore {
  private readonly switches = new Map<string, Containment>();

  async engage(containment: Containment): Promise<ContainmentEngagement> {
    const kept = this.switches.get(keyOf(containment));
    if (kept !== undefined) return { engaged: false, containment: kept };
    this.switches.set(keyOf(containment), { ...containment });
    return { engaged: true, containment: { ...containment } };
  }

  async release(key: ContainmentKey, engagedAt?: Date): Promise<boolean> {
    const kept = this.switches.get(keyOf(key));
    if (kept === undefined || (engagedAt !== undefined && kept.engagedAt.getTime() !== engagedAt.getTime()))
      return false;
    return this.switches.delete(keyOf(key));
  }

  async active(): Promise<Containment[]> {
    return [...this.switches.values()]
      .map((containment) => ({ ...containment }))
      .sort((a, b) => a.engagedAt.getTime() - b.engagedAt.getTime());
  }
}

function keyOf({ scope, subject }: ContainmentKey): string {
  return `${scope}\u0000${subject}`;
}
