import { describe, expect, it } from '@jest/globals';
import { ChainProblem, ChainVerifier } from './chain-verification.js';
import { EvidenceKind, GENESIS_HASH, GENESIS_HEAD, linkAfter } from './chain-link.js';
import { CheckpointPurpose, checkpointHash, type EvidenceCheckpoint } from './evidence-checkpoint.js';
import { decisionRecord } from './decision-record.js';

const STREAM = 'tenant:busy';
/** More than V8 takes as the arguments of one call (about 125,000 here). */
const COUNT = 150_000;

describe('ChainVerifier', () => {
  // A busy stream's background seal leaves a checkpoint per batch, several a second. Spread into one call, that many
  // checkpoints overflowed the stack: verify and prune threw instead of answering.
  it(`verifies a stream pinned by ${COUNT.toLocaleString('en')} checkpoints, and still finds a modified record`, () => {
    const records = Array.from({ length: COUNT }, (_, i) =>
      decisionRecord(
        {
          id: `r${i}`,
          correlationId: 'c',
          sequence: 0,
          stream: STREAM,
          capability: 'orders.view',
          toolKind: 'bound',
          stage: 'execution',
          disposition: 'permit',
          reason: 'authorized',
          recordedAt: new Date(Date.UTC(2026, 0, 1) + i),
        },
        {},
      ),
    );
    const links = linkAfter(EvidenceKind.Decision, STREAM, GENESIS_HEAD, records);
    // Checkpoints from before checkpoints chained, verified without a key: what is left to the verifier is their
    // number, which is what overflowed.
    const checkpoints: EvidenceCheckpoint[] = links.map((link, i) => ({
      id: `k${i}`,
      kind: EvidenceKind.Decision,
      stream: STREAM,
      sequence: link.sequence,
      hash: link.hash,
      checkpointSequence: null,
      previousCheckpointHash: null,
      purpose: CheckpointPurpose.Seal,
      algorithm: 'hmac-sha256',
      keyId: 'busy-stream',
      signature: 'unchecked',
      createdAt: new Date(Date.UTC(2026, 0, 1) + i),
    }));
    const verify = (edited: number | null) => {
      const verifier = new ChainVerifier(EvidenceKind.Decision, STREAM, checkpoints);
      let going = true;
      for (let i = 0; i < COUNT && going; i++) {
        const record = i === edited ? { ...records[i]!, reason: 'approved by operator:1' } : records[i]!;
        going = verifier.accept(record, links[i]!);
      }
      return verifier.finish(0);
    };

    expect(verify(null)).toMatchObject({ intact: true, records: COUNT, checkpoints: COUNT });
    expect(verify(70_000)).toMatchObject({ intact: false, firstBadSequence: 70_001 });
  });

  // A witness whose checkpoint is gone or differs is vouched for by every checkpoint chained before it: that many
  // spread into one call overflowed the stack too. The fault is the checkpoint chain's, so no record is fed.
  it(`finds a checkpoint chain of ${COUNT.toLocaleString('en')} cut back behind its witness`, () => {
    const chained: EvidenceCheckpoint[] = [];
    let previous = GENESIS_HASH;
    for (let at = 1; at <= COUNT + 1; at++) {
      const checkpoint: EvidenceCheckpoint = {
        id: `k${at}`,
        kind: EvidenceKind.Decision,
        stream: STREAM,
        sequence: at,
        hash: `pinned-${at}`,
        checkpointSequence: at,
        previousCheckpointHash: previous,
        purpose: CheckpointPurpose.Seal,
        algorithm: 'hmac-sha256',
        keyId: 'busy-stream',
        signature: 'unchecked',
        createdAt: new Date(Date.UTC(2026, 0, 1) + at),
      };
      chained.push(checkpoint);
      previous = checkpointHash(checkpoint);
    }
    // The head an earlier verification kept: the last checkpoint, since deleted.
    const witness = { checkpointSequence: COUNT + 1, checkpointHash: previous, sequence: COUNT + 1 };
    const verifier = new ChainVerifier(EvidenceKind.Decision, STREAM, chained.slice(0, COUNT), undefined, witness);

    expect(verifier.finish(0)).toMatchObject({
      intact: false,
      problem: ChainProblem.CheckpointRolledBack,
      firstBadCheckpoint: COUNT + 1,
      // The COUNT checkpoints before the witnessed one still vouch for the records they pin.
      firstBadSequence: COUNT + 1,
      checkpoints: COUNT,
    });
  });
});
