import type { DecisionRecord } from './decision-record.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';

/**
 * Keeps the most recent `capacity` records in process memory (default 10,000), oldest dropped first.
 * For tests and local development only: it is not durable and not tenant-separated.
 */
export class InMemoryEvidenceRecorder implements EvidenceRecorder {
  private records: DecisionRecord[] = [];

  constructor(private readonly capacity = 10_000) {}

  async recordDecision(record: DecisionRecord): Promise<void> {
    this.records.push(Object.freeze({ ...record }));
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
  }

  /** The kept records, oldest first. */
  decisions(): readonly DecisionRecord[] {
    return [...this.records];
  }

  clear(): void {
    this.records = [];
  }
}
