import { type DecisionRecord, decisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';

/**
 * Keeps the most recent `capacity` records in process memory (default 10,000), oldest dropped first.
 * For tests and local development only: it is not durable and not tenant-separated.
 */
export class InMemoryEvidenceRecorder implements EvidenceRecorder {
  private ring: DecisionRecord[] = [];
  private next = 0;

  constructor(private readonly capacity = 10_000) {}

  async recordDecision(record: DecisionRecord): Promise<void> {
    // Only the declared fields: whatever else a caller attached never lands in evidence.
    const kept = Object.freeze(decisionRecord(record, record));
    if (this.ring.length < this.capacity) this.ring.push(kept);
    else this.ring[this.next] = kept;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The kept records, oldest first. */
  decisions(): readonly DecisionRecord[] {
    return this.ring.length < this.capacity ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }
}
