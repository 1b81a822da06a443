import { type ChainLink, chainHash, type EvidenceKind, GENESIS_HASH, GENESIS_HEAD } from './chain-link.js';
import {
  type CheckpointKey,
  CheckpointPurpose,
  checkpointHash,
  checkpointSignatureHolds,
  type EvidenceCheckpoint,
} from './evidence-checkpoint.js';

/** What broke a chain, at its first bad sequence. */
export const ChainProblem = {
  /** The record's content no longer hashes to its stored hash (or cannot be hashed at all: an unreadable instant). */
  Modified: 'modified',
  /** A sequence number is missing: a record was deleted (or the chain never had it). */
  Missing: 'missing',
  /** The record does not follow its predecessor's hash, or its sequence appears twice: inserted, reordered or relinked. */
  BrokenLink: 'broken_link',
  /** A checkpoint's signature does not hold under the configured key. */
  CheckpointSignature: 'checkpoint_signature',
  /** A checkpoint pins a different hash for this sequence than the record has. */
  CheckpointMismatch: 'checkpoint_mismatch',
  /** A checkpoint covers sequences past the last record: the tail was deleted. */
  Truncated: 'truncated',
  /** A checkpoint sequence is missing: a checkpoint was deleted from the checkpoint chain. */
  CheckpointMissing: 'checkpoint_missing',
  /** A checkpoint does not follow its predecessor's checkpoint hash: one was replaced, inserted or reordered. */
  CheckpointBrokenLink: 'checkpoint_broken_link',
  /** The checkpoint a witness (an earlier verification kept elsewhere) holds is gone or differs: the chain was cut back. */
  CheckpointRolledBack: 'checkpoint_rolled_back',
  /** With a key: linked records no checkpoint pins, beyond the last seal's grace ({@link LAST_SEAL_GRACE}). */
  Unpinned: 'unpinned',
  /**
   * Records no link of the stream names that are not queued either, so no seal will link them: only a link deleted
   * after its seal (the seal took the record out of the queue) or a record inserted outside the queue leaves one.
   */
  Unlinked: 'unlinked',
} as const;
export type ChainProblem = (typeof ChainProblem)[keyof typeof ChainProblem];

/**
 * The last checkpoint of an intact checkpoint chain: what to keep outside the database (an append-only
 * log) and hand back to a later verification as its witness (docs/evidence.md, "Witness").
 */
export interface CheckpointHead {
  /** Its place in the checkpoint chain. */
  readonly checkpointSequence: number;
  /** Its {@link checkpointHash}. */
  readonly checkpointHash: string;
  /** The chain sequence of the record it pins. */
  readonly sequence: number;
}

/** The verdict on one stream of one kind (`verdict evidence verify`). */
export interface ChainVerification {
  readonly kind: EvidenceKind;
  readonly stream: string;
  readonly intact: boolean;
  /** The first sequence that does not verify, or `null`. */
  readonly firstBadSequence: number | null;
  readonly problem: ChainProblem | null;
  /** The checkpoint sequence of the checkpoint a checkpoint problem names, or `null`. */
  readonly firstBadCheckpoint: number | null;
  /** Chained records checked (up to the first bad one). */
  readonly records: number;
  /** The last sequence checked as intact (the anchor's after a prune, 0 for an empty stream). */
  readonly verifiedThrough: number;
  readonly checkpoints: number;
  /** The head of the checkpoint chain when the stream is intact: keep it as the next verification's witness. */
  readonly checkpointHead: CheckpointHead | null;
  /** Whether checkpoint signatures were checked (a key was configured). */
  readonly signaturesChecked: boolean;
  /**
   * Records no link of the stream names. Those still queued (written since the last seal) are not covered by this
   * verdict; one that is not queued fails it (`unlinked`).
   */
  readonly unsealed: number;
}

/**
 * How far a stream's links may run past its last checkpoint and still verify when a key is configured: the
 * last seal's batch, whose checkpoint may not be written yet (on MySQL/MariaDB a sealer that dies between its
 * links and its checkpoint leaves them so until the next seal). At most one seal batch of links, each of
 * whose records was recorded within the last ten minutes and no later than a minute past the verifier's clock
 * (`clockSkewMilliseconds`: the writers' clocks may run a little ahead of it; a record dated further on was not
 * written by the last seal's writers); anything more is `unpinned` (ADR 0048).
 */
export const LAST_SEAL_GRACE = Object.freeze({ links: 500, milliseconds: 10 * 60_000, clockSkewMilliseconds: 60_000 });

/** A stream's checkpoint head from an earlier verification (the `streams` of a kept `verify --json`). */
export type ChainWitness = Pick<ChainVerification, 'kind' | 'stream' | 'checkpointHead'>;

/** A checkpoint fault: the first record sequence it leaves unvouched, what broke, and which checkpoint. */
interface Fault {
  readonly sequence: number;
  readonly problem: ChainProblem;
  readonly checkpoint: number | null;
}

/**
 * Verifies one stream incrementally: feed its chained records in sequence order to {@link accept}, then
 * {@link finish}. The chain starts at the genesis hash, or at the latest prune checkpoint's hash. The
 * checkpoints are checked first, as a chain of their own (ADR 0034): from the latest chained prune anchor (or
 * from checkpoint 1, after a pre-chain one: ADR 0183) every checkpoint sequence must be present once and name its
 * predecessor's hash; with a key, every signature must hold; with a witness, the witnessed checkpoint must still
 * be there (or lie before a later prune anchor).
 */
export class ChainVerifier {
  private expected: number;
  private previousHash: string;
  private records = 0;
  private failure: Fault | null = null;
  /** Every checkpoint but the anchor, by the record sequence it pins: two can pin one (a re-seal after tampering). */
  private readonly pinned = new Map<number, EvidenceCheckpoint[]>();
  /** The first sequence of the chain: 1, or the one after the prune anchor (or after {@link after}'s head). */
  private start: number;
  private readonly fault: Fault | null;
  private readonly head: CheckpointHead | null;
  /** The last record sequence a checkpoint (the anchor included) pins, 0 when none does. */
  private readonly lastPinned: number;
  private unpinned = 0;
  private oldestUnpinned = Infinity;
  private newestUnpinned = -Infinity;
  /** {@link keepFrom}'s instant (ms), or `null`: no cut point is looked for. */
  private keptFrom: number | null = null;
  private firstKeptSequence: number | null = null;

  /** When verification began (monotonic): the grace's upper bound moves on with the time it takes. */
  private readonly started: number;

  constructor(
    private readonly kind: EvidenceKind,
    private readonly stream: string,
    private readonly checkpoints: readonly EvidenceCheckpoint[],
    private readonly key?: CheckpointKey,
    witness?: CheckpointHead | null,
    private readonly now: Date = new Date(),
  ) {
    this.started = performance.now();
    // A checkpoint whose numbers cannot be read can be neither hashed nor checked, and one with a single chain field
    // has no place in the checkpoint chain: it fails its stream alone (below), and the rest is verified from the others.
    const unreadable = checkpoints.find((checkpoint) => !isReadable(checkpoint));
    const readable = unreadable === undefined ? checkpoints : checkpoints.filter(isReadable);
    // A loop, not Math.max(...): a busy stream has hundreds of thousands of checkpoints, past any argument list.
    this.lastPinned = readable.reduce((last, checkpoint) => Math.max(last, checkpoint.sequence), 0);
    const anchor = latestAnchor(readable);
    this.expected = (anchor?.sequence ?? GENESIS_HEAD.sequence) + 1;
    this.previousHash = anchor?.hash ?? GENESIS_HEAD.hash;
    this.start = this.expected;
    for (const checkpoint of readable)
      if (checkpoint !== anchor)
        this.pinned.set(checkpoint.sequence, [...(this.pinned.get(checkpoint.sequence) ?? []), checkpoint]);
    const walked = walkCheckpoints(readable, anchor, witness ?? null);
    this.head = walked.head;
    const unsigned =
      key === undefined ? [] : readable.filter((checkpoint) => !checkpointSignatureHolds(key, checkpoint));
    const signature = [...unsigned].sort((a, b) => a.sequence - b.sequence)[0];
    const faults: Fault[] = [
      ...(unreadable === undefined ? [] : [unreadableFault(unreadable, readable, anchor)]),
      ...(signature === undefined
        ? []
        : [
            {
              sequence: signature.sequence,
              problem: ChainProblem.CheckpointSignature,
              checkpoint: signature.checkpointSequence,
            },
          ]),
      ...(walked.fault === null ? [] : [walked.fault]),
    ];
    this.fault = faults.sort((a, b) => a.sequence - b.sequence)[0] ?? null;
    if (anchor !== undefined && unsigned.includes(anchor))
      this.failure = {
        sequence: anchor.sequence,
        problem: ChainProblem.CheckpointSignature,
        checkpoint: anchor.checkpointSequence,
      };
  }

  /**
   * A verifier of the links after `from`, a head a checkpoint pins (its sequence and hash, as stored), taken as vouched
   * for: the links must follow it without a gap and their records must hash to them (`modified`, `missing`,
   * `broken_link`); no checkpoint, signature or grace is checked. What a seal verifies of a stream's unpinned tail
   * before it signs a checkpoint over it (ADR 0048), reading only that tail. A `from` whose sequence cannot be read
   * vouches for nothing: the verifier fails at the chain's first sequence with `checkpoint_broken_link`. A stream
   * whose last link (`head`) is before `from` lost links a checkpoint pins: it fails `truncated` after `head`.
   */
  static after(
    kind: EvidenceKind,
    stream: string,
    from: Pick<ChainLink, 'sequence' | 'hash'>,
    head: Pick<ChainLink, 'sequence'>,
  ): ChainVerifier {
    const verifier = new ChainVerifier(kind, stream, []);
    if (!Number.isSafeInteger(from.sequence))
      verifier.fail({ sequence: verifier.start, problem: ChainProblem.CheckpointBrokenLink });
    else if (head.sequence < from.sequence)
      verifier.fail({ sequence: head.sequence + 1, problem: ChainProblem.Truncated });
    else {
      verifier.start = verifier.expected = from.sequence + 1;
      verifier.previousHash = from.hash;
    }
    return verifier;
  }

  /**
   * The lowest sequence any link of the stream has (`null`: none), read apart from the links fed in order: a link
   * below the chain's start (at or before sequence 0, or at or before the prune anchor, whose prune removed every
   * such link with its record) was never sealed into the chain, so the record it names was inserted.
   */
  linksStartAt(lowest: number | null): void {
    if (this.failure === null && lowest !== null && lowest < this.start)
      this.failure = { sequence: lowest, problem: ChainProblem.BrokenLink, checkpoint: null };
  }

  /**
   * Before records are fed: notes the first verified record recorded at or after `before` ({@link firstKept}), where a
   * prune with that cutoff cuts the chain (it deletes every record before it). Costs no statement: the records are
   * those being verified.
   */
  keepFrom(before: Date): void {
    this.keptFrom = before.getTime();
  }

  /** Checks the next link and its record (`null`: the record is gone); `false` once the chain has failed (stop feeding it). */
  accept(record: object | null, link: ChainLink): boolean {
    return this.acceptHashed(
      link,
      record === null
        ? null
        : { hash: () => chainHash(this.kind, record, link), recordedAt: () => recordedAtOf(record) },
    );
  }

  /**
   * {@link accept} for a reader that hashes the record itself (from its stored form): `record.hash()` is its
   * {@link chainHash} at `link`, `record.recordedAt()` when it was recorded (ms); `null`: the record is gone.
   */
  acceptHashed(link: ChainLink, record: { hash(): string; recordedAt(): number } | null): boolean {
    if (this.failure !== null) return false;
    // No sealer writes another sequence; a column that stores one anyway (SQLite keeps 3.5 in a bigint column) must
    // not hide a record between two links as "before the prune anchor".
    if (!Number.isSafeInteger(link.sequence))
      return this.fail({ sequence: this.expected, problem: ChainProblem.BrokenLink });
    // A sequence already verified (its link appears twice: a links table without its primary key), or one at or
    // before the chain's start, which no seal or prune leaves: a record inserted into the chain.
    if (link.sequence < this.expected) return this.fail({ sequence: link.sequence, problem: ChainProblem.BrokenLink });
    if (this.fault !== null && link.sequence >= this.fault.sequence) return this.fail(this.fault);
    if (link.sequence > this.expected) return this.fail({ sequence: this.expected, problem: ChainProblem.Missing });
    if (record === null) return this.fail({ sequence: link.sequence, problem: ChainProblem.Missing });
    if (link.previousHash !== this.previousHash)
      return this.fail({ sequence: link.sequence, problem: ChainProblem.BrokenLink });
    if (!hashesTo(record, link.hash)) return this.fail({ sequence: link.sequence, problem: ChainProblem.Modified });
    const checkpoint = this.pinned.get(link.sequence)?.find((pinning) => pinning.hash !== link.hash);
    if (checkpoint !== undefined)
      return this.fail({
        sequence: link.sequence,
        problem: ChainProblem.CheckpointMismatch,
        checkpoint: checkpoint.checkpointSequence,
      });
    if (link.sequence > this.lastPinned) {
      const recordedAt = record.recordedAt();
      this.unpinned++;
      this.oldestUnpinned = Math.min(this.oldestUnpinned, recordedAt);
      this.newestUnpinned = Math.max(this.newestUnpinned, recordedAt);
    }
    if (this.keptFrom !== null && this.firstKeptSequence === null && record.recordedAt() >= this.keptFrom)
      this.firstKeptSequence = link.sequence;
    this.records++;
    this.expected++;
    this.previousHash = link.hash;
    return true;
  }

  /**
   * The verdict, once every chained record was fed (or {@link accept} returned `false`). `unsealed`: the stream's
   * records no link of it names; `queued`: how many of them wait in the queue a seal links from (all, unless said).
   * One that does not wait there was taken out by the seal that linked it, whose link is gone: `unlinked`, after the
   * last record verified (its link was there or after it, or the chain would have failed `missing` before), unless
   * an earlier sequence failed (`unpinned` names the first record after the last checkpoint, never a later one).
   */
  finish(unsealed: number, queued = unsealed): ChainVerification {
    if (this.failure === null) {
      const last = this.expected - 1;
      const beyond = [...this.pinned.values()].flat().filter((checkpoint) => checkpoint.sequence > last);
      if (this.fault !== null) this.fail(this.fault);
      else if (beyond.length > 0)
        this.fail({
          sequence: last + 1,
          problem: ChainProblem.Truncated,
          checkpoint: beyond.sort((a, b) => a.sequence - b.sequence)[0]!.checkpointSequence,
        });
      else if (this.key !== undefined && !this.withinLastSealGrace())
        this.fail({ sequence: this.lastPinned + 1, problem: ChainProblem.Unpinned });
      else if (queued < unsealed) this.fail({ sequence: last + 1, problem: ChainProblem.Unlinked });
    }
    const failure = this.failure;
    return {
      kind: this.kind,
      stream: this.stream,
      intact: failure === null,
      firstBadSequence: failure?.sequence ?? null,
      problem: failure?.problem ?? null,
      firstBadCheckpoint: failure?.checkpoint ?? null,
      records: this.records,
      verifiedThrough: failure === null ? this.expected - 1 : Math.min(this.expected, failure.sequence) - 1,
      checkpoints: this.checkpoints.length,
      checkpointHead: failure === null ? this.head : null,
      signaturesChecked: this.key !== undefined,
      unsealed,
    };
  }

  /**
   * After {@link finish}: the last link verified (the prune anchor's, or the genesis head, when no link follows it),
   * or `null` when the stream did not verify. What a prune may sign a checkpoint of: the head as it was verified.
   */
  verifiedHead(): Pick<ChainLink, 'sequence' | 'hash'> | null {
    return this.failure === null ? { sequence: this.expected - 1, hash: this.previousHash } : null;
  }

  /**
   * After {@link finish}: the sequence of the first verified record recorded at or after {@link keepFrom}'s instant, or
   * `null` when none is (or none was asked for). A prune's cut point as its verification saw it: the prune refuses a
   * stream whose cut point moved since.
   */
  firstKept(): number | null {
    return this.firstKeptSequence;
  }

  /**
   * With a key, whatever no checkpoint pins must be the last seal's batch, not yet signed (ADR 0048): each of its
   * records recorded within the grace before now, and none later than the clock when verification ends (give or take
   * the clock skew allowed): a long verification of a busy stream reads records written after it began.
   */
  private withinLastSealGrace(): boolean {
    if (this.unpinned === 0) return true;
    const now = this.now.getTime();
    const ended = now + Math.max(0, performance.now() - this.started);
    return (
      this.unpinned <= LAST_SEAL_GRACE.links &&
      this.oldestUnpinned >= now - LAST_SEAL_GRACE.milliseconds &&
      this.newestUnpinned <= ended + LAST_SEAL_GRACE.clockSkewMilliseconds
    );
  }

  private fail(failure: Omit<Fault, 'checkpoint'> & { checkpoint?: number | null }): false {
    this.failure = { ...failure, checkpoint: failure.checkpoint ?? null };
    return false;
  }
}

/**
 * Whether `record` hashes to `hash`. A record that cannot be hashed (an instant it holds cannot be read: an Invalid
 * Date, an infinite timestamp) no longer hashes to what was linked: it is `modified`, and the other streams are still
 * verified rather than the whole verification failing with the hashing error.
 */
function hashesTo(record: { hash(): string }, hash: string): boolean {
  try {
    return record.hash() === hash;
  } catch {
    return false;
  }
}

/** When a chained record was recorded, in ms; a record without a readable time is as old as can be. */
function recordedAtOf(record: object): number {
  const { recordedAt } = record as { recordedAt?: unknown };
  return instantMs(recordedAt instanceof Date ? recordedAt.getTime() : Number.NaN);
}

/** A time in ms, or -Infinity (as old as can be) for one that could not be read. */
export function instantMs(time: number): number {
  return Number.isNaN(time) ? -Infinity : time;
}

/**
 * Whether a checkpoint's numbers can be read as a sealer writes them: whole sequences (SQLite keeps any text, 'abc', in
 * a bigint column, which reads as NaN and has no canonical JSON), and both chain fields or neither. A seal writes both;
 * a checkpoint written before checkpoints chained has neither, and its signature covers neither: a `checkpoint_sequence`
 * written into its row is nobody's signed word, so such a checkpoint has no place in the checkpoint chain.
 */
function isReadable(checkpoint: EvidenceCheckpoint): boolean {
  return (
    Number.isSafeInteger(checkpoint.sequence) &&
    (checkpoint.checkpointSequence === null) === (checkpoint.previousCheckpointHash === null) &&
    (checkpoint.checkpointSequence === null || Number.isSafeInteger(checkpoint.checkpointSequence))
  );
}

/**
 * A checkpoint's place in the checkpoint chain, which it signed: `null` for one written before checkpoints chained
 * (it lies before every chained checkpoint, whatever its row says) and for one with a single chain field.
 */
function chainPlace(checkpoint: EvidenceCheckpoint): number | null {
  return checkpoint.previousCheckpointHash === null ? null : checkpoint.checkpointSequence;
}

/**
 * The fault of a checkpoint whose numbers cannot be read ({@link isReadable}): it can be neither hashed nor checked (or,
 * with a single chain field, placed), so no successor follows it and it vouches for nothing, as a replaced checkpoint
 * (`checkpoint_broken_link`). It names the checkpoint's place in the checkpoint chain when that can be read, and the
 * first record no readable checkpoint before it (the prune anchor included) vouches for.
 */
function unreadableFault(
  checkpoint: EvidenceCheckpoint,
  readable: readonly EvidenceCheckpoint[],
  anchor: EvidenceCheckpoint | undefined,
): Fault {
  const place = chainPlace(checkpoint);
  const at = Number.isSafeInteger(place) ? place : null;
  const vouched = readable
    .filter((before) => before === anchor || (at !== null && (chainPlace(before) ?? Infinity) < at))
    .reduce((last, before) => Math.max(last, before.sequence), GENESIS_HEAD.sequence);
  return { sequence: vouched + 1, problem: ChainProblem.CheckpointBrokenLink, checkpoint: at };
}

/**
 * The stream's prune anchor: the chained prune checkpoint latest in the checkpoint chain, else the pre-chain one of the
 * latest record. A pre-chain checkpoint ranks by what it signed (its record), never by a `checkpoint_sequence` in its row.
 */
function latestAnchor(checkpoints: readonly EvidenceCheckpoint[]): EvidenceCheckpoint | undefined {
  return checkpoints
    .filter((checkpoint) => checkpoint.purpose === CheckpointPurpose.Prune)
    .sort((a, b) => (chainPlace(b) ?? 0) - (chainPlace(a) ?? 0) || b.sequence - a.sequence)[0];
}

/**
 * Walks the checkpoint chain from the anchor (a chained one: what precedes it was pruned through it) or from
 * checkpoint 1 (no anchor, or a pre-chain one: every chained checkpoint follows it, the first seal after the upgrade
 * wrote checkpoint 1): the first fault (a gap, a duplicate or a wrong predecessor hash; a witnessed checkpoint gone
 * or changed) and the chain's head. A fault's `sequence` is the first record sequence no intact checkpoint
 * before it vouches for.
 */
function walkCheckpoints(
  checkpoints: readonly EvidenceCheckpoint[],
  anchor: EvidenceCheckpoint | undefined,
  witness: CheckpointHead | null,
): { fault: Fault | null; head: CheckpointHead | null } {
  const start = anchor === undefined ? null : chainPlace(anchor);
  const chain = checkpoints
    .filter((checkpoint) => chainPlace(checkpoint) !== null && checkpoint !== anchor)
    .filter((checkpoint) => start === null || checkpoint.checkpointSequence! > start)
    .sort((a, b) => a.checkpointSequence! - b.checkpointSequence! || a.sequence - b.sequence);
  let expected = (start ?? 0) + 1;
  let previous = start === null ? GENESIS_HASH : checkpointHash(anchor!);
  let through = anchor?.sequence ?? 0;
  let head: CheckpointHead | null =
    start === null ? null : { checkpointSequence: start, checkpointHash: previous, sequence: anchor!.sequence };
  const seen = new Map<number, CheckpointHead>(head === null ? [] : [[start!, head]]);
  const fault = (problem: ChainProblem, checkpoint: number): Fault => ({ sequence: through + 1, problem, checkpoint });
  for (const checkpoint of chain) {
    const at = checkpoint.checkpointSequence!;
    if (at < expected) return { fault: fault(ChainProblem.CheckpointBrokenLink, at), head };
    if (at > expected) return { fault: fault(ChainProblem.CheckpointMissing, expected), head };
    if (checkpoint.previousCheckpointHash !== previous)
      return { fault: fault(ChainProblem.CheckpointBrokenLink, at), head };
    previous = checkpointHash(checkpoint);
    through = Math.max(through, checkpoint.sequence);
    head = { checkpointSequence: at, checkpointHash: previous, sequence: checkpoint.sequence };
    seen.set(at, head);
    expected++;
  }
  if (witness !== null) {
    const kept = seen.get(witness.checkpointSequence);
    const prunedPast = start !== null && start > witness.checkpointSequence;
    if ((kept === undefined && !prunedPast) || (kept !== undefined && kept.checkpointHash !== witness.checkpointHash)) {
      const before = [...seen.values()].filter((entry) => entry.checkpointSequence < witness.checkpointSequence);
      const vouched = before.reduce((last, entry) => Math.max(last, entry.sequence), anchor?.sequence ?? 0);
      return {
        fault: {
          sequence: vouched + 1,
          problem: ChainProblem.CheckpointRolledBack,
          checkpoint: witness.checkpointSequence,
        },
        head,
      };
    }
  }
  return { fault: null, head };
}
