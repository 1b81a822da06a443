import type { ChainVerification } from './chain-verification.js';

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
  /** Chains every record not chained yet, stream by stream, each under its stream's lock. */
  seal(): Promise<SealReport>;
  /** Seals nothing; verifies every stream of every kind, in stream order. */
  verify(): Promise<ChainVerification[]>;
  /**
   * Seals, then deletes the chained records recorded before `before`, stream by stream up to the last
   * such sequence, and leaves a signed prune checkpoint there so what remains still verifies.
   * @throws VerdictConfigurationError without a key that can sign.
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
