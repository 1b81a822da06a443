import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type Proposal,
  VerdictService,
  fingerprintString,
} from '@verdict/nestjs';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

const NOW = new Date('2026-01-01T10:00:00.000Z');

async function setup() {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const evidence = new InMemoryEvidenceRecorder();
  const receipts = new InMemoryApprovalReceiptStore();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, archived)],
    evidence,
    approvals: receipts,
    clock: () => NOW,
  });
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const as = <T>(fn: () => Promise<T>) => moduleRef.get(ActionContextStore).run(alice, fn);
  /** A JSON caller's (or a runtime's) proposal: the tool-call id as it arrived, whatever its type. */
  const archive = (toolCallId: unknown, note?: string): Proposal =>
    ({
      capability: 'documents.archive',
      arguments: note === undefined ? { id: 1 } : { id: 1, note },
      toolCallId,
    }) as Proposal;
  return { ...fixture, verdict, approvals, archived, evidence, receipts, as, archive };
}

/** What the ids became before: `String(null)` and the blank strings themselves. */
const ABSENT: readonly [string, unknown][] = [
  ['null', null],
  ['empty', ''],
  ['blank', '  '],
];

describe('a null or blank tool-call id is no tool-call id', () => {
  for (const [name, toolCallId] of ABSENT) {
    it(`attack (${name}): a call that requires confirmation issues no receipt and never executes`, async () => {
      const { verdict, as, archive, receipts, approvals, archived, evidence } = await setup();

      const first = await as(() => verdict.execute(archive(toolCallId)));
      const resumed = await as(() => verdict.execute(archive(toolCallId), { explicitApproval: true }));

      for (const result of [first, resumed])
        expect(result).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'approval' } });
      expect(archived).toHaveLength(0);
      for (const slot of ['null', '', '  ', String(toolCallId)]) {
        expect(await receipts.pendingForToolCall(slot, NOW)).toEqual([]);
        if (slot.trim() !== '') expect(await approvals.challengeForToolCall(slot, alice)).toBeNull();
      }
      // Evidence carries no fingerprint of a made-up id.
      expect(evidence.decisions().every((record) => record.toolCallFingerprint === null)).toBe(true);
    });
  }

  it('attack: id-less calls with different arguments share no receipt slot', async () => {
    const { verdict, as, archive, receipts } = await setup();

    const one = await as(() => verdict.execute(archive(null, 'first')));
    const other = await as(() => verdict.execute(archive(null, 'second')));

    // Neither is asked nor throttled as "this tool call already awaits approval": both lack the id confirmation needs.
    for (const result of [one, other])
      expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'approval' });
    expect(await receipts.pendingForToolCall('null', NOW)).toEqual([]);
  });

  for (const [name, toolCallId] of [
    ['true', true],
    ['an object', { id: 'call_1' }],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ] as const) {
    it(`attack (${name}): a malformed tool-call id is a recorded deny at proposal, nothing issued`, async () => {
      const { verdict, as, archive, receipts, archived, evidence } = await setup();

      const result = await as(() => verdict.execute(archive(toolCallId), { explicitApproval: true }));

      expect(result).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'proposal' } });
      expect(archived).toHaveLength(0);
      expect(await receipts.pendingForToolCall(String(toolCallId), NOW)).toEqual([]);
      const [record] = evidence.decisions();
      expect(record).toMatchObject({ stage: 'proposal', disposition: 'deny', toolCallFingerprint: null });
      expect(record!.reason).toMatch(/tool-call id/);
    });
  }

  it('control: a real id gets its challenge, is approved and executes once, fingerprinted in evidence', async () => {
    const { verdict, as, archive, approvals, archived, evidence } = await setup();

    const first = await as(() => verdict.execute(archive('call_1')));
    expect(first).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    const challenge = await approvals.challengeForToolCall('call_1', alice);
    expect(challenge).toMatchObject({ toolCallId: 'call_1', capability: 'documents.archive' });
    await approvals.approve(challenge!.receiptId, 'call_1', 'customer:alice');

    expect(await as(() => verdict.execute(archive('call_1'), { explicitApproval: true }))).toMatchObject({
      executed: true,
    });
    expect(archived).toHaveLength(1);
    const proposed = evidence.decisions().filter((record) => record.toolKind === 'service');
    expect(proposed.every((record) => record.toolCallFingerprint === fingerprintString('call_1'))).toBe(true);
  });

  it('control: a finite numeric id is its decimal string, as before', async () => {
    const { verdict, as, archive, approvals } = await setup();

    await as(() => verdict.execute(archive(42)));

    expect(await approvals.challengeForToolCall('42', alice)).toMatchObject({ toolCallId: '42' });
  });

  it('a capability without confirmation runs a call with a null id (control), fingerprinting no made-up id (attack)', async () => {
    const { verdict, as, executions, evidence } = await setup();

    const result = await as(() =>
      verdict.execute({ capability: 'documents.read', arguments: { id: 1 }, toolCallId: null } as unknown as Proposal),
    );

    expect(result).toMatchObject({ executed: true });
    expect(executions).toHaveLength(1);
    expect(evidence.decisions().every((record) => record.toolCallFingerprint === null)).toBe(true);
  });
});
