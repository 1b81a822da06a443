import { describe, expect, it } from '@jest/globals';
import {
  ChainProblem,
  EvidenceChainBrokenError,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  decisionRecord,
} from '@verdict/nestjs';
import { streamDecision } from '@verdict/testing-kit';

const STREAM = 'tenant:in-memory';
const day = (n: number) => new Date(Date.UTC(2026, 0, n));

/** A recorder holding one record a day, days 1–4, in {@link STREAM}. */
async function recorded() {
  const recorder = new InMemoryEvidenceRecorder();
  for (let n = 1; n <= 4; n++) await recorder.recordDecision(streamDecision(STREAM, `refund ${n}`, day(n)));
  return recorder;
}

describe('InMemoryEvidenceRecorder, tampering through what it hands out', () => {
  it('hands out records whose instants a caller cannot change in what it keeps', async () => {
    const recorder = await recorded();
    const query = new InMemoryEvidenceQuery(recorder);
    recorder.decisions()[0]!.recordedAt.setTime(day(20).getTime());
    (await query.list())[0]!.recordedAt.setTime(day(21).getTime());
    (await query.run(recorder.decisions()[1]!.correlationId))[0]!.recordedAt.setTime(0);

    expect(recorder.decisions().map((record) => record.recordedAt)).toEqual([day(1), day(2), day(3), day(4)]);
    expect(await recorder.verify()).toMatchObject([{ intact: true, records: 4 }]);
    // Control: what it hands out is still frozen, and holds what was written.
    expect(Object.isFrozen(recorder.decisions()[0])).toBe(true);
    expect(recorder.decisions()[2]).toMatchObject({ reason: 'refund 3', recordedAt: day(3) });
  });

  it('prunes nothing while a stream does not verify', async () => {
    const recorder = await recorded();
    // Whatever reaches the kept records (here its private state): the second record replaced after it was linked.
    const chain = (recorder as unknown as { decisionChain: { entries: Array<{ record: unknown }> } }).decisionChain;
    chain.entries[1]!.record = Object.freeze(
      decisionRecord({ ...recorder.decisions()[1]!, reason: 'nothing to see' }, {}),
    );
    expect(await recorder.verify()).toMatchObject([
      { intact: false, problem: ChainProblem.Modified, firstBadSequence: 2 },
    ]);

    await expect(recorder.prune(day(3))).rejects.toBeInstanceOf(EvidenceChainBrokenError);

    expect(recorder.decisions()).toHaveLength(4);
    expect(await recorder.verify()).toMatchObject([{ intact: false, firstBadSequence: 2 }]);
  });

  it('prunes an intact chain (control)', async () => {
    const recorder = await recorded();
    expect(await recorder.prune(day(3))).toEqual({ pruned: 2, anchored: 1 });
    expect(await recorder.verify()).toMatchObject([{ intact: true, records: 2, verifiedThrough: 4 }]);
  });
});
