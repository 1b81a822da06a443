import { describe, expect, it } from '@jest/globals';
import { decisionRecord } from './decision-record.js';
import { releaseRecord } from './release-record.js';
import { MAX_REASON_LENGTH, storableDescription, storableReason } from './storable-reason.js';

describe('storableReason', () => {
  it('attack: writes U+0000 and lone surrogates as U+FFFD, and cuts a long reason without splitting a pair', () => {
    expect(storableReason('no order A\u0000B')).toBe('no order A\ufffdB');
    expect(storableReason('lone \ud800 and \udc00')).toBe('lone \ufffd and \ufffd');
    // 4,095 code units would end inside the 2,048th emoji: it is left out whole.
    const cut = storableReason('😀'.repeat(5_000));
    expect(cut).toHaveLength(MAX_REASON_LENGTH - 1);
    expect(cut).toBe(`${'😀'.repeat(2_047)}…`);
    expect(cut).not.toMatch(/\p{Cs}/u);
    // Applied again (a recorder completing a record the trail built), it changes nothing.
    for (const text of [cut, storableReason('a\u0000'), storableReason('x'.repeat(10_000))])
      expect(storableReason(text)).toBe(text);
  });

  it('attack: every record is built with a storable reason, decisions and releases alike', () => {
    const decision = decisionRecord(
      {
        id: 'd',
        correlationId: 'c',
        sequence: 0,
        capability: 'orders.lookup',
        toolKind: 'service' as never,
        stage: 'proposal' as never,
        disposition: 'deny',
        reason: 'no order \u0000',
        recordedAt: new Date(0),
      },
      {},
    );
    expect(decision.reason).toBe('no order \ufffd');
    const release = releaseRecord({ ...({} as Parameters<typeof releaseRecord>[0]), reason: 'r'.repeat(5_000) });
    expect(release.reason).toBe(`${'r'.repeat(MAX_REASON_LENGTH - 1)}…`);
  });

  it('control: an ordinary reason, up to the bound, is kept exactly', () => {
    for (const reason of ['no order A-1 — ünïcödé 中文 😀', 'tab\tand\nline', 'z'.repeat(MAX_REASON_LENGTH)])
      expect(storableReason(reason)).toBe(reason);
  });
});

describe('storableDescription', () => {
  it('attack: a description interpolating what the model wrote is made storable as a reason is', () => {
    expect(storableDescription('Send note: pay\u0000me \ud800')).toBe('Send note: pay\ufffdme \ufffd');
    // Never cut: a cut could hide the end of what the human approves.
    const long = `Send note: ${'x'.repeat(70_000)} to mallory`;
    expect(storableDescription(long)).toBe(long);
  });

  it('control: no description stays none, and an ordinary one is kept exactly', () => {
    expect([storableDescription(undefined), storableDescription(null)]).toEqual([null, null]);
    expect(storableDescription('Send note: pay 😀 now')).toBe('Send note: pay 😀 now');
  });
});
