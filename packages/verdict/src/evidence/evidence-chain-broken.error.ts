import type { ChainVerification } from './chain-verification.js';
import { VerdictError } from '../errors/verdict.error.js';

/**
 * Evidence was not pruned: a stream did not verify. A prune deletes records and signs an anchor over what is left,
 * so pruning a broken stream could delete the tampered records or re-sign a forged chain. Nothing was deleted. Run
 * `verdict evidence verify`, investigate, and prune once every stream verifies.
 */
export class EvidenceChainBrokenError extends VerdictError {
  readonly code = 'VERDICT_EVIDENCE_CHAIN_BROKEN';

  constructor(readonly broken: readonly ChainVerification[]) {
    const [first] = broken;
    super(
      `Evidence was not pruned: ${broken.length} stream(s) do not verify, the first ${first!.kind} stream ${first!.stream} (${first!.problem} at sequence ${first!.firstBadSequence}). Run \`verdict evidence verify\` and investigate before pruning.`,
      { kind: first!.kind, stream: first!.stream, problem: first!.problem ?? undefined, streams: broken.length },
    );
  }
}
