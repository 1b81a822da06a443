import { describe, expect, it } from '@jest/globals';
import { decisionRecord } from './decision-record.js';
import { InMemoryEvidenceRecorder } from './in-memory-evidence-recorder.js';

const record = (n: number) =>
  decisionRecord(
    {
      id: `r${n}`,
      correlationId: 'c',
      sequence: n,
      capability: 'x',
      toolKind: 'service',
      stage: 'proposal',
      disposition: 'deny',
      reason: 'r',
      recordedAt: new Date(n),
    },
    {},
  );

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
});
