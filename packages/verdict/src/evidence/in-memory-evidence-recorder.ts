import { isFlatValue } from '../fingerprints/flat-canonical-json.js';
import { SETTLED } from '../shared/settled.js';
import { type ChainLink, EvidenceKind, GENESIS_HASH, GENESIS_HEAD, assertChainable, linkAfter } from './chain-link.js';
import { ChainVerifier, type ChainVerification } from './chain-verification.js';
import { type DecisionRecord, decisionRecord } from './decision-record.js';
import { CheckpointPurpose, type EvidenceCheckpoint } from './evidence-checkpoint.js';
import { EvidenceChainBrokenError } from './evidence-chain-broken.error.js';
import { checkedPruneCutoff } from './evidence-filter.js';
import {
  type ChainVerifyOptions,
  type EvidenceChain,
  type PruneReport,
  type SealReport,
  witnessOf,
} from './evidence-chain.interface.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';
import { type ReleaseRecord, releaseRecord } from './release-record.js';

/** A kept record and its place in its stream's chain, once linked. */
interface Chained<T> {
  readonly record: T;
  link: ChainLink | undefined;
}

/** The most records left unlinked: a write that reaches it links them all (ADR 0075). */
const LINK_BATCH = 256;

/**
 * `record` — a {@link decisionRecord} or {@link releaseRecord}: its declared keys only — frozen, with its own copy of
 * every instant (a caller's later change to its Date cannot reach evidence), and refused as hashing it would refuse
 * it (ADR 0075). The values are checked in the same walk as they are copied; only a record holding a value the flat
 * canonical form does not take goes through the general check, which throws for what it cannot hash.
 */
function owned<T extends DecisionRecord | ReleaseRecord>(record: T): T {
  const values = record as unknown as Record<string, unknown>;
  let flat = true;
  for (const key of Object.keys(values)) {
    const value = values[key];
    // Most values are scalars (facts and fingerprints): nothing to copy.
    if (typeof value !== 'object' || value === null) {
      if (flat && !isFlatValue(value)) flat = false;
      continue;
    }
    // Records are flat; a nested value (only reachable past the types) is copied too, so an edit the caller makes
    // before the record is linked cannot reach the hash.
    const copy = value instanceof Date ? new Date(value.getTime()) : frozenCopy(value);
    values[key] = copy;
    if (flat && !isFlatValue(copy)) flat = false;
  }
  if (!flat) assertChainable(record);
  return Object.freeze(record);
}

/** A frozen copy of the arrays and plain objects in `value` (anything else as is: the chain check judges it). */
function frozenCopy(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.freeze(Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, frozenCopy(inner)])));
}

/** A frozen copy of a kept (frozen) record, each instant its own Date; its other values are frozen already. */
function handedOut<T extends object>(record: T): T {
  const copy = { ...record } as Record<string, unknown>;
  for (const key of Object.keys(copy)) {
    const value = copy[key];
    if (value instanceof Date) copy[key] = new Date(value.getTime());
  }
  return Object.freeze(copy) as T;
}

/**
 * Keeps the most recent `capacity` records of each kind (decisions, releases) in process memory
 * (default 10,000 each), oldest dropped first. Each record is chained in its stream in write order (one
 * process, no seal needed), off the call path (ADR 0075): a write only checks that the record can be
 * hashed, and the records are linked in batches — when the process is next idle, when 256 wait, or before
 * any read, verify or prune — into the same chain linking each at once would give. A dropped record leaves
 * its link as the stream's anchor, so what is kept still verifies. No checkpoint key: in-memory evidence is not tamper-evident against its own process.
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
    this.decisionChain.append(owned(decisionRecord(record, record)));
  }

  /** A run's records in one call (ADR 0022), chained in order as {@link recordDecision} chains each. */
  recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    // A subclass that overrides recordDecision (a failing or filtering recorder) is honoured record by record.
    if (this.recordDecision !== InMemoryEvidenceRecorder.prototype.recordDecision) return this.eachDecision(records);
    // Written at once, answered with one settled promise rather than an async function's own: every run ends here.
    try {
      for (const record of records) this.decisionChain.append(owned(decisionRecord(record, record)));
    } catch (error) {
      return Promise.reject(error);
    }
    return SETTLED;
  }

  private async eachDecision(records: readonly DecisionRecord[]): Promise<void> {
    for (const record of records) await this.recordDecision(record);
  }

  async recordRelease(record: ReleaseRecord): Promise<void> {
    this.releaseChain.append(owned(releaseRecord(record)));
  }

  /** The kept decision records, oldest first: frozen copies (with their own instants) of what it keeps. */
  decisions(): readonly DecisionRecord[] {
    return this.decisionChain.records();
  }

  /** The kept release records, oldest first: frozen copies (with their own instants) of what it keeps. */
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

  /**
   * Prunes nothing while a stream does not verify ({@link EvidenceChainBrokenError}), or with a cutoff outside the
   * years 0001–9999 (`InvalidEvidenceFilterError`), as a durable store does.
   */
  async prune(before: Date): Promise<PruneReport> {
    checkedPruneCutoff(before);
    const broken = (await this.verify()).filter((verdict) => !verdict.intact);
    if (broken.length > 0) throw new EvidenceChainBrokenError(broken);
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
  /** `entries[linked..]` are not linked yet. */
  private linked = 0;
  /** The idle turn that links them, when one is scheduled. */
  private idle: ReturnType<typeof setImmediate> | undefined;
  private readonly heads = new Map<string, Pick<ChainLink, 'sequence' | 'hash'>>();
  /** Per stream: the link of its last dropped record, and how many drops anchored it (the anchor's place in its checkpoint chain). */
  private readonly anchors = new Map<string, { readonly link: ChainLink; readonly generation: number }>();

  constructor(
    private readonly kind: EvidenceKind,
    private readonly capacity: number,
  ) {}

  /** Keeps `record`, as {@link owned} made it (checked, frozen, its own instants); it is linked later, in write order. */
  append(record: T): void {
    this.entries.push({ record, link: undefined });
    if (this.entries.length - this.linked >= LINK_BATCH) this.link();
    else this.idle ??= setImmediate(() => this.link());
    if (this.entries.length - this.start > this.capacity) this.drop();
  }

  /** Links every record not linked yet, in write order: each after its stream's head. */
  link(): void {
    if (this.idle !== undefined) clearImmediate(this.idle);
    this.idle = undefined;
    for (; this.linked < this.entries.length; this.linked++) {
      const entry = this.entries[this.linked]!;
      const { stream } = entry.record;
      const [link] = linkAfter(this.kind, stream, this.heads.get(stream) ?? GENESIS_HEAD, [entry.record]);
      this.heads.set(stream, link!);
      entry.link = link;
    }
  }

  /** The kept records, as copies: a caller's change to an instant of one (a Date) cannot reach what is kept. */
  records(): T[] {
    this.link();
    return this.kept().map((entry) => handedOut(entry.record));
  }

  private kept(): Array<Chained<T>> {
    return this.start === 0 ? this.entries : this.entries.slice(this.start);
  }

  verify(options: ChainVerifyOptions): ChainVerification[] {
    this.link();
    const witnessed = (options.witness ?? []).filter((entry) => entry.kind === this.kind).map((entry) => entry.stream);
    return [...new Set([...this.heads.keys(), ...witnessed])].sort().map((stream) => {
      const anchor = this.anchors.get(stream);
      const verifier = new ChainVerifier(
        this.kind,
        stream,
        anchor === undefined ? [] : [anchorCheckpoint(this.kind, anchor.link, anchor.generation)],
        undefined,
        witnessOf(options, this.kind, stream),
      );
      for (const { record, link } of this.kept()) if (link!.stream === stream && !verifier.accept(record, link!)) break;
      return verifier.finish(0);
    });
  }

  prune(before: Date): PruneReport {
    // Per stream, as a durable store prunes: a stream's records up to the first one recorded at or after `before`
    // (write order is chain order within a stream; the streams interleave, and a run writes its records in batches,
    // so one stream's newer record must not keep another stream's older ones).
    this.link();
    const kept = this.kept();
    const reached = new Set<string>();
    const anchors = new Map<string, ChainLink>();
    const remaining = kept.filter(({ record, link }) => {
      if (!reached.has(record.stream) && record.recordedAt < before) {
        anchors.set(record.stream, link!);
        return false;
      }
      reached.add(record.stream);
      return true;
    });
    for (const [stream, link] of anchors) this.anchor(stream, link);
    this.entries = remaining;
    this.start = 0;
    this.linked = remaining.length;
    return { pruned: kept.length - remaining.length, anchored: anchors.size };
  }

  clear(): void {
    if (this.idle !== undefined) clearImmediate(this.idle);
    this.idle = undefined;
    this.entries = [];
    this.start = 0;
    this.linked = 0;
    this.heads.clear();
    this.anchors.clear();
  }

  /**
   * Anchors `stream` at `link`, its last dropped record: each drop anchors a stream anew, later in its checkpoint
   * chain, so a witness of an earlier anchor was pruned past.
   */
  private anchor(stream: string, link: ChainLink): void {
    this.anchors.set(stream, { link, generation: (this.anchors.get(stream)?.generation ?? 0) + 1 });
  }

  /** Drops the oldest kept record, anchoring its stream at its link. */
  private drop(): void {
    if (this.linked <= this.start) this.link();
    const { link } = this.entries[this.start]!;
    this.anchor(link!.stream, link!);
    this.start += 1;
    // Cut the dropped prefix off once it is as long as what is kept: amortized O(1) per dropped entry.
    if (this.start >= this.entries.length - this.start) {
      this.entries = this.entries.slice(this.start);
      this.linked -= this.start;
      this.start = 0;
    }
  }
}

/**
 * The in-process anchor a dropped record leaves, as the prune checkpoint a durable store would sign; `generation`,
 * how many drops anchored its stream, is its place in the stream's checkpoint chain.
 */
function anchorCheckpoint(kind: EvidenceKind, link: ChainLink, generation: number): EvidenceCheckpoint {
  return {
    id: `memory-anchor:${link.stream}`,
    kind,
    stream: link.stream,
    sequence: link.sequence,
    hash: link.hash,
    checkpointSequence: generation,
    previousCheckpointHash: GENESIS_HASH,
    purpose: CheckpointPurpose.Prune,
    algorithm: 'hmac-sha256',
    keyId: 'in-memory',
    signature: '',
    createdAt: new Date(0),
  };
}
