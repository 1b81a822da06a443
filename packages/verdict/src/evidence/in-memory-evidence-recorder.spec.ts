import { describe, expect, it } from '@jest/globals';
import { decisionRecord } from './decision-record.js';
import { InMemoryEvidenceRecorder } from './in-memory-evidence-recorder.js';

const record = (n: number, reason = 'r', recordedAt = new Date(n)) =>
  decisionRecord(
    {
      id: `r${n}`,
      correlationId: 'c',
      sequence: n,
      stream: n % 2 === 0 ? 'tenant:even' : 'tenant:odd',
      capability: 'x',
      toolKind: 'service',
      stage: 'proposal',
      disposition: 'deny',
      reason,
      recordedAt,
    },
    {},
  );
const idle = () => new Promise((resolve) => setImmediate(resolve));

describe('InMemoryEvidenceRecorder', () => {
  it('keeps the most recent records, oldest first, once over capacity', async () => {
    const recorder = new InMemoryEvidenceRecorder(3);
    for (let n = 1; n <= 7; n++) await recorder.recordDecision(record(n));
    expect(recorder.decisions().map((r) => r.id)).toEqual(['r5', 'r6', 'r7']);
  });

  it('freezes what it keeps', async () => {
    const recorder = new InMemoryEvidenceRecorder();
    await recorder.recordDecision(record(1));
    expect(Object.isFrozen(recorder.decisions()[0])).toBe(true);
  });

  describe('linking off the call path (ADR 0075)', () => {
    it('links in write order into the chain linking each record at once gives, across idle turns and batches', async () => {
      const recorder = new InMemoryEvidenceRecorder();
      const written = Array.from({ length: 600 }, (_, i) => record(i + 1));
      for (const [i, each] of written.entries()) {
        await recorder.recordDecision(each);
        if (i % 97 === 0) await idle();
      }
      const verified = await recorder.verify();
      expect(verified.map(({ stream, intact, records }) => ({ stream, intact, records }))).toEqual([
        { stream: 'tenant:even', intact: true, records: 300 },
        { stream: 'tenant:odd', intact: true, records: 300 },
      ]);
      // Intact from genesis over the same records in the same order: the chain eager linking gives (hashes are deterministic).
      expect(recorder.decisions().map((kept) => kept.id)).toEqual(written.map((each) => each.id));
    });

    it('still verifies what it keeps after dropping records it had not linked yet', async () => {
      const recorder = new InMemoryEvidenceRecorder(3);
      await recorder.recordDecisions(Array.from({ length: 10 }, (_, i) => record(i + 1)));
      expect(recorder.decisions().map((kept) => kept.id)).toEqual(['r8', 'r9', 'r10']);
      expect((await recorder.verify()).every((stream) => stream.intact)).toBe(true);
    });

    it('verifies against a witness taken before later records were dropped or pruned: a drop is not a rollback', async () => {
      const dropping = new InMemoryEvidenceRecorder(5);
      for (let n = 1; n <= 6; n++) await dropping.recordDecision(record(n));
      const witness = await dropping.verify();
      await dropping.recordDecision(record(7));
      await dropping.recordDecision(record(8));
      expect((await dropping.verify({ witness })).map(({ intact, problem }) => ({ intact, problem }))).toEqual([
        { intact: true, problem: null },
        { intact: true, problem: null },
      ]);
      const pruning = new InMemoryEvidenceRecorder();
      for (let n = 1; n <= 8; n++) await pruning.recordDecision(record(n));
      await pruning.prune(new Date(3));
      const pruned = await pruning.verify();
      await pruning.prune(new Date(6));
      expect((await pruning.verify({ witness: pruned })).every((stream) => stream.intact)).toBe(true);
    });

    it('refuses a record that cannot be hashed when it is written, not later', async () => {
      const recorder = new InMemoryEvidenceRecorder();
      // (A reason is made storable instead: a lone surrogate there is written as U+FFFD, docs/evidence.md.)
      const unhashable = { ...record(1), capability: 'lone \uD800 surrogate' };
      await expect(recorder.recordDecision(unhashable)).rejects.toThrow('lone surrogate');
      await expect(recorder.recordDecision(record(2, 'plain reason'))).resolves.toBeUndefined();
      expect(recorder.decisions().map((kept) => kept.id)).toEqual(['r2']);
    });

    it('refuses, when written, an invalid instant, a non-finite number and a nested value it cannot hash', async () => {
      const recorder = new InMemoryEvidenceRecorder();
      await expect(recorder.recordDecision(record(1, 'r', new Date(Number.NaN)))).rejects.toThrow(RangeError);
      const infinite = { ...record(2), sequence: Number.POSITIVE_INFINITY };
      await expect(recorder.recordDecision(infinite)).rejects.toThrow();
      const nested = record(3, { note: 'lone \uD800' } as unknown as string);
      await expect(recorder.recordDecision(nested)).rejects.toThrow('lone surrogate');
      await recorder.recordDecision(record(4));
      expect(recorder.decisions().map((kept) => kept.id)).toEqual(['r4']);
      expect((await recorder.verify()).every((stream) => stream.intact)).toBe(true);
    });

    it("keeps its own instants: a caller's later change to its Date neither reaches evidence nor breaks the chain", async () => {
      const recorder = new InMemoryEvidenceRecorder();
      const shared = new Date(1_000);
      await recorder.recordDecision(record(1, 'r', shared));
      shared.setTime(2_000);
      expect(recorder.decisions()[0]!.recordedAt.getTime()).toBe(1_000);
      expect((await recorder.verify()).every((stream) => stream.intact)).toBe(true);
    });

    it("keeps its own copy of a nested value: a caller's edit before linking neither reaches evidence nor the hash", async () => {
      const recorder = new InMemoryEvidenceRecorder();
      const reason = { note: 'original' };
      // Past the types: records are flat, but a nested value must not stay the caller's to edit until linked.
      await recorder.recordDecision(record(1, reason as unknown as string));
      reason.note = 'changed before linking';
      expect(recorder.decisions()[0]!.reason).toEqual({ note: 'original' });
      expect((await recorder.verify()).every((stream) => stream.intact)).toBe(true);
    });
  });
});
