import type { ChainVerification } from './chain-verification.js';
import type { PruneReport } from './evidence-chain.interface.js';
import { VerdictError } from '../errors/verdict.error.js';

/**
 * A stream did not verify, so it was not pruned or not sealed. A prune deletes records and signs an anchor over what is
 * left, so pruning a broken stream could delete the tampered records or re-sign a forged chain: when its verification
 * fails, nothing is deleted. A stream that changed after the prune verified it is left as it is, nothing of it deleted
 * or signed, and the other streams are pruned: `pruned` says what they lost. A seal signs a checkpoint over the
 * links no checkpoint pins, so it signs none over links that do not verify (ADR 0048): those streams were left as they
 * were, and the seal went on with the others. Run `verdict evidence verify`, investigate, and prune (or seal) once
 * every stream verifies.
 */
export class EvidenceChainBrokenError extends VerdictError {
  readonly code = 'VERDICT_EVIDENCE_CHAIN_BROKEN';

  constructor(
    readonly broken: readonly ChainVerification[],
    /** What was refused: a prune (nothing deleted of the streams named) or a seal (nothing signed over them). */
    readonly refused: 'prune' | 'seal' = 'prune',
    /**
     * A prune's: what it pruned of the other streams before it refused those named (records deleted, streams
     * anchored), which the refusal does not undo; `undefined` when it pruned nothing.
     */
    readonly pruned?: PruneReport,
  ) {
    const [first] = broken;
    const streams = `${broken.length} stream(s) do not verify, the first ${first!.kind} stream ${first!.stream} (${first!.problem} at sequence ${first!.firstBadSequence})`;
    super(
      refused === 'seal'
        ? `Evidence was not sealed: ${streams}; no checkpoint was signed over them, and the other streams were sealed. Run \`verdict evidence verify\` and investigate.`
        : pruned === undefined
          ? `Evidence was not pruned: ${streams}. Run \`verdict evidence verify\` and investigate before pruning.`
          : `Evidence was pruned in part: ${streams}, and nothing of them was deleted or signed; ${pruned.anchored} other stream(s) were pruned: ${pruned.pruned} record(s) deleted, each stream anchored by a signed checkpoint. Run \`verdict evidence verify\` and investigate before pruning again.`,
      {
        kind: first!.kind,
        stream: first!.stream,
        problem: first!.problem ?? undefined,
        streams: broken.length,
        refused,
        ...(pruned === undefined ? {} : { pruned: pruned.pruned, anchored: pruned.anchored }),
      },
    );
  }
}
