import { type DecisionRecord, decisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from './release-record.js';

/**
 * Keeps the most recent `capacity` records of each kind (decisions, releases) in process memory
 * (default 10,000 each), oldest dropped first.
 * For tests and local development only: it is not durable and not tenant-separated.
 */
export class InMemoryEvidenceRecorder implements EvidenceRecorder {
  private readonly decisionRing: Ring<DecisionRecord>;
  private readonly releaseRing: Ring<ReleaseRecord>;

  constructor(capacity = 10_000) {
    this.decisionRing = new Ring(capacity);
    this.releaseRing = new Ring(capacity);
  }

  async recordDecision(record: DecisionRecord): Promise<void> {
    // Only the declared fields: whatever else a caller attached never lands in evidence.
    this.decisionRing.push(Object.freeze(decisionRecord(record, record)));
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    this.releaseRing.push(Object.freeze(releaseRecord(record)));
  }

  /** The kept decision records, oldest first. */
  decisions(): readonly DecisionRecord[] {
    return this.decisionRing.items();
  }

  /** The kept release records, oldest first. */
  releases(): readonly ReleaseRecord[] {
    return this.releaseRing.items();
  }

  clear(): void {
    this.decisionRing.clear();
    this.releaseRing.clear();
  }
}

/** A fixed-capacity ring buffer, oldest overwritten first. */
class Ring<T> {
  private entries: T[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    if (this.entries.length < this.capacity) this.entries.push(item);
    else this.entries[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
  }

  items(): T[] {
    return this.entries.length < this.capacity
      ? [...this.entries]
      : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
  }

  clear(): void {
    this.entries = [];
    this.next = 0;
  }
}
