import type { ProvenanceLedger } from './provenance-ledger.interface.js';
import { type ProvenanceRecord, provenanceRecord } from './provenance-record.js';

/**
 * Keeps the most recent `capacity` provenance records in process memory (default 10,000), oldest dropped
 * first. For tests and local development only: not durable, not tenant-separated.
 */
export class InMemoryProvenanceLedger implements ProvenanceLedger {
  private entries: ProvenanceRecord[] = [];

  constructor(private readonly capacity = 10_000) {}

  async append(records: readonly ProvenanceRecord[]): Promise<void> {
    const copies = records.map((record) => Object.freeze(provenanceRecord(record)));
    this.entries.push(...copies);
    if (this.entries.length > this.capacity) this.entries = this.entries.slice(this.entries.length - this.capacity);
  }

  async forContent(contentFingerprint: string): Promise<readonly ProvenanceRecord[]> {
    return oldestFirst(this.entries.filter((record) => record.contentFingerprint === contentFingerprint));
  }

  async forCorrelation(correlationId: string): Promise<readonly ProvenanceRecord[]> {
    return oldestFirst(this.entries.filter((record) => record.correlationId === correlationId));
  }

  /** Every kept record, oldest first. */
  records(): readonly ProvenanceRecord[] {
    return [...this.entries];
  }
}

/** By time, then id: the order the TypeORM adapter reads in. */
function oldestFirst(records: ProvenanceRecord[]): ProvenanceRecord[] {
  return records.sort(
    (a, b) => a.recordedAt.getTime() - b.recordedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
