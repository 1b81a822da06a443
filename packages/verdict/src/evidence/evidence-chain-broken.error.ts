import type { ChainVerification } from './chain-verification.js';
import { VerdictError } from '../errors/verdict.error.js';

/**
 * Evidence was not pruned, or a stream was not sealed: a stream did not verify. A prune deletes records and signs an
 * anchor over what is left, so pruning a broken stream could delete the tampered records or re-sign a forged chain.
 * Nothing was deleted; of a stream that changed after the prune verified it, nothing was deleted or signed, and the
 * other streams were pruned. A seal signs a checkpoint over the links no checkpoint pins, so it signs none over links that
 * do not verify (ADR 0048): those streams were left as they were, and the seal went on with the others. Run
 * `verdict evidence verify`, investigate, and prune (or seal) once every stream verifies.
 */
export class EvidenceChainBrokenError extends VerdictError {
  readonly code = 'VERDICT_EVIDENCE_CHAIN_BROKEN';

  constructor(
    readonly broken: readonly ChainVerification[],
    /** What was refused: a prune (nothing deleted) or a seal (nothing signed over the streams named). */
    readonly refused: 'prune' | 'seal' = 'prune',
  ) {
    const [first] = broken;
    const streams = `${broken.length} stream(s) do not verify, the first ${first!.kind} stream ${first!.stream} (${first!.problem} at sequence ${first!.firstBadSequence})`;
    super(
      refused === 'prune'
        ? `Evidence was not pruned: ${streams}. Run \`verdict evidence verify\` and investigate before pruning.`
        : `Evidence was not sealed: ${streams}; no checkpoint was signed over them, and the other streams were sealed. Run \`verdict evidence verify\` and investigate.`,
      {
        kind: first!.kind,
        stream: first!.stream,
        problem: first!.problem ?? undefined,
        streams: broken.length,
        refused,
      },
    );
  }
}
