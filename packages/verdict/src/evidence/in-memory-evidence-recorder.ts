import { type ChainLink, EvidenceKind, GENESIS_HASH, GENESIS_HEAD, linkAfter } from './chain-link.js';
import { ChainVerifier, type ChainVerification } from './chain-verification.js';
import { type DecisionRecord, decisionRecord } from './decision-record.js';
import { CheckpointPurpose, type EvidenceCheckpoint } from './evidence-checkpoint.js';
import {
  type ChainVerifyOptions,
  type EvidenceChain,
  type PruneReport,
  type SealReport,
  witnessOf,
} from './evidence-chain.interface.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from './release-record.js';

/** A kept record and its place in its stream's chain. */
interface Chained<T> {
  readonly record: T;
  readonly link: ChainLink;
}

/**
 * Keeps the most recent `capacity` records of each kind (decisions, releases) in process memory
 * (default 10,000 each), oldest dropped first. Each record is chained in its stream as it is written
 * (one process, no seal needed); a dropped record leaves its link as the stream's anchor, so what is
 * kept still verifies. No checkpoint key: in-memory evidence is not tamper-evident against its own process.
 * For tests and local development only: it is not durable and not tenant-separated.
 */
export class InMemoryEvidenceRecorder implements EvidenceRecorder, EvidenceChain {
  private readonly decisionChain: MemoryChain<DecisionRecord>;
  private readonly releaseChain: MemoryChain<ReleaseRecord>;

  constructor(capacity = 10_000) {
    this.decisionChain = new MemoryChain(EvidenceKind.Decision, capacity);
    this.releaseChain = new MemoryChain(EvidenceKind.Release, capacity);
  }

  async recordDecision(record: DecisionRecord): Promise<void> {
    // Only the declared fields: whatever else a caller attached never lands in evidence.
    this.decisionChain.append(Object.freeze(decisionRecord(record, record)));
  }

  /** A run's records in one call (ADR 0022), chained in order as {@link recordDecision} chains each. */
  async recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    // A subclass that overrides recordDecision (a failing or filtering recorder) is honoured record by record.
    if (this.recordDecision !== InMemoryEvidenceRecorder.prototype.recordDecision) {
      for (const record of records) await this.recordDecision(record);
      return;
    }
    for (const record of records) this.decisionChain.append(Object.freeze(decisionRecord(record, record)));
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    this.releaseChain.append(Object.freeze(releaseRecord(record)));
  }

  /** The kept decision records, oldest first. */
  decisions(): readonly DecisionRecord[] {
    return this.decisionChain.records();
  }

  /** The kept release records, oldest first. */
  releases(): readonly ReleaseRecord[] {
    return this.releaseChain.records();
  }

  /** Every record is chained as it is written: nothing to seal. */
  async seal(): Promise<SealReport> {
    return { sealed: 0, checkpoints: 0 };
  }

  async verify(options: ChainVerifyOptions = {}): Promise<ChainVerification[]> {
    return [...this.decisionChain.verify(options), ...this.releaseChain.verify(options)];
  }

  async prune(before: Date): Promise<PruneReport> {
    const decisions = this.decisionChain.prune(before);
    const releases = this.releaseChain.prune(before);
    return { pruned: decisions.pruned + releases.pruned, anchored: decisions.anchored + releases.anchored };
  }

  clear(): void {
    this.decisionChain.clear();
    this.releaseChain.clear();
  }
}

/** One kind's records: a bounded list in write order, chained per stream. */
class MemoryChain<T extends { readonly stream: string; readonly recordedAt: Date }> {
  /** Kept entries are `entries[start..]`; dropped ones are cut off in chunks, not one shift per append. */
  private entries: Array<Chained<T>> = [];
  private start = 0;
  private readonly heads = new Map<string, Pick<ChainLink, 'sequence' | 'hash'>>();
  private readonly anchors = new Map<string, ChainLink>();

  constructor(
    private readonly kind: EvidenceKind,
    private readonly capacity: number,
  ) {}

  append(record: T): void {
    const [link] = linkAfter(this.kind, record.stream, this.heads.get(record.stream) ?? GENESIS_HEAD, [record]);
    this.heads.set(record.stream, link!);
    this.entries.push({ record, link: link! });
    if (this.entries.length - this.start > this.capacity) this.drop(1);
  }

  records(): T[] {
    return this.kept().map((entry) => entry.record);
  }

  private kept(): Array<Chained<T>> {
    return this.start === 0 ? this.entries : this.entries.slice(this.start);
  }

  verify(options: ChainVerifyOptions): ChainVerification[] {
    const witnessed = (options.witness ?? []).filter((entry) => entry.kind === this.kind).map((entry) => entry.stream);
    return [...new Set([...this.heads.keys(), ...witnessed])].sort().map((stream) => {
      const anchor = this.anchors.get(stream);
      const verifier = new ChainVerifier(
        this.kind,
        stream,
        anchor === undefined ? [] : [anchorCheckpoint(this.kind, anchor)],
        undefined,
        witnessOf(options, this.kind, stream),
      );
      for (const { record, link } of this.kept()) if (link.stream === stream && !verifier.accept(record, link)) break;
      return verifier.finish(0);
    });
  }

  prune(before: Date): PruneReport {
    // Write order is chain order per stream, so a stream's old records are a prefix of its entries.
    const kept = this.kept();
    const old = kept.findIndex((entry) => entry.record.recordedAt >= before);
    const count = old === -1 ? kept.length : old;
    const streams = new Set(kept.slice(0, count).map((entry) => entry.link.stream));
    this.drop(count);
    return { pruned: count, anchored: streams.size };
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
    this.heads.clear();
    this.anchors.clear();
  }

  private drop(count: number): void {
    const end = this.start + count;
    for (let i = this.start; i < end; i++) this.anchors.set(this.entries[i]!.link.stream, this.entries[i]!.link);
    this.start = end;
    // Cut the dropped prefix off once it is as long as what is kept: amortized O(1) per dropped entry.
    if (this.start >= this.entries.length - this.start) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }
}

/** The in-process anchor a dropped record leaves, as the prune checkpoint a durable store would sign. */
function anchorCheckpoint(kind: EvidenceKind, link: ChainLink): EvidenceCheckpoint {
  return {
    id: `memory-anchor:${link.stream}`,
    kind,
    stream: link.stream,
    sequence: link.sequence,
    hash: link.hash,
    checkpointSequence: 1,
    previousCheckpointHash: GENESIS_HASH,
    purpose: CheckpointPurpose.Prune,
    algorithm: 'hmac-sha256',
    keyId: 'in-memory',
    signature: '',
    createdAt: new Date(0),
  };
}
