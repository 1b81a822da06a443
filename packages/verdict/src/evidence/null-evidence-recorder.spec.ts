import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { decisionRecord } from './decision-record.js';
import { NullEvidenceRecorder } from './null-evidence-recorder.js';

describe('NullEvidenceRecorder', () => {
  it('warns once per process that consequential actions go unrecorded, however many recorders exist', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const record = decisionRecord(
      {
        id: 'r',
        correlationId: 'c',
        sequence: 0,
        capability: 'x',
        toolKind: 'service',
        stage: 'proposal',
        disposition: 'deny',
        reason: 'r',
        recordedAt: new Date(0),
      },
      {},
    );
    for (const recorder of [new NullEvidenceRecorder(), new NullEvidenceRecorder()]) {
      await recorder.recordDecision(record);
      await recorder.recordDecision(record);
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('not being recorded');
    warn.mockRestore();
  });
});
