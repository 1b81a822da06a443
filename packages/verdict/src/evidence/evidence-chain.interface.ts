import type { EvidenceKind } from './chain-link.js';
import type { ChainVerification, ChainWitness, CheckpointHead } from './chain-verification.js';

/** Options of {@link EvidenceChain.verify}. */
export interface ChainVerifyOptions {
  /**
   * The streams of an earlier verification, kept where whoever can write the evidence tables cannot
   * (an append-only log): each stream's `checkpointHead` must still be in its checkpoint chain, or lie
   * before a later prune anchor. A stream cut back to an earlier checkpoint (its latest checkpoints and
   * their records deleted), or deleted whole, then fails with `checkpoint_rolled_back`.
   */
  readonly witness?: readonly ChainWitness[];
}

/** The witnessed checkpoint head of one stream, or `null`. */
export function witnessOf(options: ChainVerifyOptions, kind: EvidenceKind, stream: string): CheckpointHead | null {
  return options.witness?.find((entry) => entry.kind === kind && entry.stream === stream)?.checkpointHead ?? null;
}

/** What one seal chained. */
export interface SealReport {
  /** Records given a chain position. */
  readonly sealed: number;
  /** Signed checkpoints written (none without a checkpoint key). */
  readonly checkpoints: number;
}

/** What one prune removed. */
export interface PruneReport {
  /** Records deleted. */
  readonly pruned: number;
  /** Streams that got a prune checkpoint (their new anchor). */
  readonly anchored: number;
}

/**
 * A recorder whose evidence forms hash chains (docs/evidence.md): `seal` chains what was written since,
 * `verify` checks every stream, `prune` removes old records and leaves a signed anchor.
 * `InMemoryEvidenceRecorder` and `TypeOrmEvidenceRecorder` implement it; the operator CLI's `evidence`
 * commands need it.
 */
export interface EvidenceChain {
  /**
   * Chains every record not chained yet, stream by stream, each under its stream's lock. With a checkpoint key, a
   * checkpoint is signed over the links no checkpoint pins only once they verify (ADR 0048).
   * @throws EvidenceChainBrokenError (`refused: 'seal'`) when a stream's links after its last checkpoint do not verify:
   *   nothing was linked or signed in that stream, every other stream was sealed.
   */
  seal(): Promise<SealReport>;
  /** Seals nothing; verifies every stream of every kind (and every witnessed one), in stream order. */
  verify(options?: ChainVerifyOptions): Promise<ChainVerification[]>;
  /**
   * Verifies every stream as it stands and prunes nothing (signing nothing) while one does not verify; then seals
   * (a head no checkpoint pins is signed only if it is the head just verified), then deletes the chained records
   * recorded before `before`, stream by stream up to the last such sequence, and leaves a signed prune checkpoint
   * there so what remains still verifies. Under each stream's lock, before anything of it is deleted or signed, its
   * head must still be the head verified, or follow it by links that verify, and its cut point (the first record
   * recorded at or after `before`) must be the one verified.
   * @throws InvalidEvidenceFilterError when `before` is not a valid Date in the years 0001–9999 (UTC): nothing was
   *   verified, deleted or signed.
   * @throws VerdictConfigurationError without a key that can sign.
   * @throws EvidenceChainBrokenError when a stream does not verify: nothing was deleted; when the first verification
   *   failed, nothing was signed either (the seal's batch checkpoints, written before the second, stand). When a
   *   stream changed since its verification, nothing of it was deleted or signed, and the other streams were pruned:
   *   the error's `pruned` says what they lost.
   */
  prune(before: Date): Promise<PruneReport>;
}

/** Whether `recorder` keeps hash chains. */
export function isEvidenceChain(recorder: unknown): recorder is EvidenceChain {
  const candidate = recorder as Partial<EvidenceChain> | null;
  return (
    typeof candidate?.seal === 'function' &&
    typeof candidate.verify === 'function' &&
    typeof candidate.prune === 'function'
  );
}
