import { type ChainLink, chainHash, type EvidenceKind, GENESIS_HEAD } from './chain-link.js';
import {
  type CheckpointKey,
  CheckpointPurpose,
  checkpointSignatureHolds,
  type EvidenceCheckpoint,
} from './evidence-checkpoint.js';

/** What broke a chain, at its first bad sequence. */
export const ChainProblem = {
  /** The record's content no longer hashes to its stored hash. */
  Modified: 'modified',
  /** A sequence number is missing: a record was deleted (or the chain never had it). */
  Missing: 'missing',
  /** The record does not follow its predecessor's hash: inserted, reordered or relinked. */
  BrokenLink: 'broken_link',
  /** A checkpoint's signature does not hold under the configured key. */
  CheckpointSignature: 'checkpoint_signature',
  /** A checkpoint pins a different hash for this sequence than the record has. */
  CheckpointMismatch: 'checkpoint_mismatch',
  /** A checkpoint covers sequences past the last record: the tail was deleted. */
  Truncated: 'truncated',
} as const;
export type ChainProblem = (typeof ChainProblem)[keyof typeof ChainProblem];

/** The verdict on one stream of one kind (`verdict evidence verify`). */
export interface ChainVerification {
  readonly kind: EvidenceKind;
  readonly stream: string;
  readonly intact: boolean;
  /** The first sequence that does not verify, or `null`. */
  readonly firstBadSequence: number | null;
  readonly problem: ChainProblem | null;
  /** Chained records checked (up to the first bad one). */
  readonly records: number;
  /** The last sequence checked as intact (the anchor's after a prune, 0 for an empty stream). */
  readonly verifiedThrough: number;
  readonly checkpoints: number;
  /** Whether checkpoint signatures were checked (a key was configured). */
  readonly signaturesChecked: boolean;
  /** Records not chained yet (written since the last seal): not covered by this verdict. */
  readonly unsealed: number;
}

/**
 * Verifies one stream incrementally: feed its chained records in sequence order to {@link accept}, then
 * {@link finish}. The chain starts at the genesis hash, or at the latest prune checkpoint's hash.
 */
export class ChainVerifier {
  private expected: number;
  private previousHash: string;
  private records = 0;
  private failure: { sequence: number; problem: ChainProblem } | null = null;
  private readonly pinned = new Map<number, EvidenceCheckpoint>();
  private readonly badSignature: number | null;

  constructor(
    private readonly kind: EvidenceKind,
    private readonly stream: string,
    private readonly checkpoints: readonly EvidenceCheckpoint[],
    private readonly key?: CheckpointKey,
  ) {
    const anchor = [...checkpoints]
      .filter((checkpoint) => checkpoint.purpose === CheckpointPurpose.Prune)
      .sort((a, b) => b.sequence - a.sequence)[0];
    this.expected = (anchor?.sequence ?? GENESIS_HEAD.sequence) + 1;
    this.previousHash = anchor?.hash ?? GENESIS_HEAD.hash;
    for (const checkpoint of checkpoints) if (checkpoint !== anchor) this.pinned.set(checkpoint.sequence, checkpoint);
    const unsigned =
      key === undefined ? [] : checkpoints.filter((checkpoint) => !checkpointSignatureHolds(key, checkpoint));
    this.badSignature = unsigned.length === 0 ? null : Math.min(...unsigned.map((checkpoint) => checkpoint.sequence));
    if (anchor !== undefined && this.badSignature === anchor.sequence)
      this.failure = { sequence: anchor.sequence, problem: ChainProblem.CheckpointSignature };
  }

  /** Checks the next link and its record (`null`: the record is gone); `false` once the chain has failed (stop feeding it). */
  accept(record: object | null, link: ChainLink): boolean {
    if (this.failure !== null) return false;
    if (link.sequence < this.expected) return true; // at or before the prune anchor: already vouched for
    if (this.badSignature !== null && link.sequence >= this.badSignature)
      return this.fail(this.badSignature, ChainProblem.CheckpointSignature);
    if (link.sequence > this.expected) return this.fail(this.expected, ChainProblem.Missing);
    if (record === null) return this.fail(link.sequence, ChainProblem.Missing);
    if (link.previousHash !== this.previousHash) return this.fail(link.sequence, ChainProblem.BrokenLink);
    if (chainHash(this.kind, record, link) !== link.hash) return this.fail(link.sequence, ChainProblem.Modified);
    const checkpoint = this.pinned.get(link.sequence);
    if (checkpoint !== undefined && checkpoint.hash !== link.hash)
      return this.fail(link.sequence, ChainProblem.CheckpointMismatch);
    this.records++;
    this.expected++;
    this.previousHash = link.hash;
    return true;
  }

  /** The verdict, once every chained record was fed (or {@link accept} returned `false`). */
  finish(unsealed: number): ChainVerification {
    if (this.failure === null) {
      const last = this.expected - 1;
      if (this.badSignature !== null) this.fail(this.badSignature, ChainProblem.CheckpointSignature);
      else if ([...this.pinned.keys()].some((sequence) => sequence > last)) this.fail(last + 1, ChainProblem.Truncated);
    }
    const failure = this.failure;
    return {
      kind: this.kind,
      stream: this.stream,
      intact: failure === null,
      firstBadSequence: failure?.sequence ?? null,
      problem: failure?.problem ?? null,
      records: this.records,
      verifiedThrough: failure === null ? this.expected - 1 : Math.min(this.expected, failure.sequence) - 1,
      checkpoints: this.checkpoints.length,
      signaturesChecked: this.key !== undefined,
      unsealed,
    };
  }

  private fail(sequence: number, problem: ChainProblem): false {
    this.failure = { sequence, problem };
    return false;
  }
}
