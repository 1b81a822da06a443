import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictService,
  defineCapability,
  fingerprintString,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import { Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

async function setup() {
  const fixture = documentsFixture();
  const receipts = new InMemoryApprovalReceiptStore();
  let now = new Date('2026-01-01T10:00:00.000Z');
  const archived: AuthorizedAction<{ id: number; note?: string }, Document>[] = [];
  const archive = archiveCapability(fixture, archived as AuthorizedAction[]);
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [archive],
    clock: () => now,
    evidence,
    approvals: receipts,
  });
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (args: object, toolCallId: string | undefined, explicitApproval = false, context = alice) =>
    contexts.run(context, () =>
      verdict.execute({ capability: 'documents.archive', arguments: args, toolCallId }, { explicitApproval }),
    );
  /** Proposes, approves as `customer:alice` through ApprovalService, and returns the challenge. */
  const proposeAndApprove = async (args: object, toolCallId: string) => {
    const first = await propose(args, toolCallId);
    expect(first.decision.disposition).toBe('require_confirmation');
    const challenge = await approvals.challengeForToolCall(toolCallId);
    expect(await approvals.approve(challenge!.receiptId, toolCallId, 'customer:alice')).toMatchObject({
      outcome: 'approved',
    });
    return challenge!;
  };
  return {
    ...fixture,
    receipts,
    approvals,
    archived,
    evidence,
    propose,
    proposeAndApprove,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

describe('verified confirmation in the pipeline', () => {
  it('pauses with require_confirmation and a challenge built from trusted data; nothing executes', async () => {
    const { propose, archived, receipts } = await setup();
    const result = await propose({ id: 1 }, 'call_1');
    expect(result).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation', stage: 'approval' },
    });
    expect(!result.executed && result.challenge).toMatchObject({
      toolCallId: 'call_1',
      capability: 'documents.archive',
      reason: 'Archiving hides the document from everyone.',
      description: 'Archive document 1',
    });
    expect(archived).toHaveLength(0);
    expect(await receipts.pendingForToolCall('call_1', new Date('2026-01-01T10:00:00.000Z'))).toHaveLength(1);
  });

  it('executes the exact approved call once, and refuses its replay', async () => {
    const { propose, proposeAndApprove, archived } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    const executed = await propose({ id: 1 }, 'call_1', true);
    const replay = await propose({ id: 1 }, 'call_1', true);
    expect(executed).toMatchObject({ executed: true, output: 'archived 1' });
    expect(replay).toMatchObject({
      executed: false,
      decision: { disposition: 'deny', stage: 'approval', reason: 'replay: this approval was already consumed' },
    });
    expect(archived).toHaveLength(1);
  });

  it('still refuses the replay once the consumed receipt was pruned: its tombstone answers (control: a new call asks again)', async () => {
    const { propose, proposeAndApprove, archived, receipts, advance } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    expect(await propose({ id: 1 }, 'call_1', true)).toMatchObject({ executed: true });
    advance(86_400_000);
    expect(await receipts.prune(new Date('2026-01-02T00:00:00.000Z'))).toEqual({ pruned: 1, tombstones: 1 });

    const replay = await propose({ id: 1 }, 'call_1', true);
    expect(replay).toMatchObject({
      executed: false,
      decision: { disposition: 'deny', stage: 'approval', reason: 'replay: this approval was already consumed' },
    });
    const fresh = await propose({ id: 1 }, 'call_2', true);
    expect(fresh).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(archived).toHaveLength(1);
  });

  it('refuses a replay after the receipt expired as a replay, with its signal (control: an unconsumed approval past its expiry has expired)', async () => {
    const { propose, proposeAndApprove, archived, advance } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    await proposeAndApprove({ id: 1, note: 'later' }, 'call_2');
    expect(await propose({ id: 1 }, 'call_1', true)).toMatchObject({ executed: true });
    advance(86_400_000); // past both receipts' expiry, before any prune

    expect((await propose({ id: 1 }, 'call_1', true)).decision).toMatchObject({
      disposition: 'deny',
      stage: 'approval',
      reason: 'replay: this approval was already consumed',
      signal: 'approval_replay_detected',
    });
    const late = (await propose({ id: 1, note: 'later' }, 'call_2', true)).decision;
    expect(late).toMatchObject({ disposition: 'deny', reason: 'the approval expired before execution' });
    expect(late.signal).toBeUndefined();
    expect(archived).toHaveLength(1);
  });

  it('signals a replay when a racing call consumed the approval and the receipt expired before this one consumed it', async () => {
    const { propose, proposeAndApprove, archived, receipts } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    const consume = receipts.consume.bind(receipts);
    receipts.consume = async (key, now) => {
      receipts.consume = consume;
      expect(await consume(key, now)).toMatchObject({ outcome: 'approved' }); // the racing call spends it first
      return consume(key, new Date(now.getTime() + 86_400_000)); // this one comes back after the expiry
    };
    expect((await propose({ id: 1 }, 'call_1', true)).decision).toMatchObject({
      disposition: 'deny',
      stage: 'approval',
      reason: 'the approval could not be consumed: expired',
      signal: 'approval_replay_detected',
    });
    expect(archived).toHaveLength(0);
  });

  it('never consumes an approved receipt for an invocation without explicit approval of its tool call', async () => {
    const { propose, proposeAndApprove, archived, receipts } = await setup();
    const challenge = await proposeAndApprove({ id: 1 }, 'call_1');
    const unapproved = await propose({ id: 1 }, 'call_1', false);
    expect(unapproved.decision.disposition).toBe('require_confirmation');
    expect(archived).toHaveLength(0);
    expect((await receipts.find(challenge.receiptId))?.status).toBe('approved');
  });

  it('asks again when the arguments changed after approval, and executes nothing', async () => {
    const { propose, proposeAndApprove, archived, approvals } = await setup();
    const approved = await proposeAndApprove({ id: 1 }, 'call_1');
    const changed = await propose({ id: 1, note: 'and delete the backups' }, 'call_1', true);
    expect(changed.decision.disposition).toBe('require_confirmation');
    expect(archived).toHaveLength(0);
    // The changed call got a receipt of its own, pending a new approval.
    expect(!changed.executed && changed.challenge?.receiptId).not.toBe(approved.receiptId);
    expect(await approvals.challengeForToolCall('call_1')).not.toBeNull();
  });

  it('asks again when the bound state changed between approval and execution (validated against the execution target)', async () => {
    const { propose, proposeAndApprove, archived, hooks, evidence } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    hooks.onRefresh = (doc) => new Document(doc.id, doc.tenant, doc.owner, 'renamed since approval');
    const result = await propose({ id: 1 }, 'call_1', true);
    expect(result.decision.disposition).toBe('require_confirmation');
    expect(archived).toHaveLength(0);
    const phases = evidence
      .decisions()
      .filter((r) => r.approvalPhase !== null)
      .map((r) => `${r.approvalPhase}:${r.approvalOutcome}`);
    expect(phases.slice(-2)).toEqual(['proposal_validation:approved', 'execution_validation:mismatch']);
  });

  it('refuses an expired approval', async () => {
    const { propose, proposeAndApprove, archived, advance } = await setup();
    await proposeAndApprove({ id: 1 }, 'call_1');
    advance(300_000);
    const result = await propose({ id: 1 }, 'call_1', true);
    expect(result.decision).toMatchObject({ disposition: 'deny', reason: 'the approval expired before execution' });
    expect(archived).toHaveLength(0);
  });

  it('leaves the receipt unused when policy denies after approval', async () => {
    const { propose, proposeAndApprove, archived, receipts, hooks, revoked } = await setup();
    const challenge = await proposeAndApprove({ id: 1 }, 'call_1');
    hooks.onRefresh = () => void revoked.add('alice');
    const result = await propose({ id: 1 }, 'call_1', true);
    expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'execution' });
    expect(archived).toHaveLength(0);
    expect((await receipts.find(challenge.receiptId))?.status).toBe('approved');
  });

  it('answers approve with a wrong receipt id as not_found, and approve after reject as invalid_state', async () => {
    const { propose, approvals, archived } = await setup();
    await propose({ id: 1 }, 'call_1');
    const challenge = (await approvals.challengeForToolCall('call_1'))!;
    expect(await approvals.approve(`${challenge.receiptId}x`, 'call_1', 'customer:alice')).toEqual({
      outcome: 'not_found',
    });
    expect(await approvals.approve(challenge.receiptId, 'call_other', 'customer:alice')).toEqual({
      outcome: 'not_found',
    });
    expect(await approvals.reject(challenge.receiptId, 'call_1', 'customer:alice')).toMatchObject({
      outcome: 'rejected',
    });
    expect(await approvals.approve(challenge.receiptId, 'call_1', 'customer:alice')).toEqual({
      outcome: 'invalid_state',
    });
    const afterReject = await propose({ id: 1 }, 'call_1', true);
    expect(afterReject.decision).toMatchObject({ disposition: 'deny', reason: 'the approver rejected this proposal' });
    expect(archived).toHaveLength(0);
  });

  it('treats colliding tool-call ids with different bindings as ambiguous, binding each separately', async () => {
    const { propose, approvals, receipts } = await setup();
    const mine = await propose({ id: 1 }, 'call_dup');
    const theirs = await propose({ id: 2 }, 'call_dup', false, bob);
    expect(await approvals.challengeForToolCall('call_dup')).toBeNull();
    const ids = [mine, theirs].map((r) => (!r.executed ? r.challenge?.receiptId : undefined));
    expect(new Set(ids).size).toBe(2);
    expect(await receipts.pendingForToolCall('call_dup', new Date('2026-01-01T10:00:00.000Z'))).toHaveLength(2);
  });

  it('never executes an invocation without a tool-call id', async () => {
    const { propose, archived } = await setup();
    const result = await propose({ id: 1 }, undefined, true);
    expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'approval' });
    expect(archived).toHaveLength(0);
  });

  it('records each phase with the hashed receipt id, never the receipt id itself', async () => {
    const { propose, proposeAndApprove, evidence } = await setup();
    const challenge = await proposeAndApprove({ id: 1 }, 'call_1');
    await propose({ id: 1 }, 'call_1', true);
    const approvalRecords = evidence.decisions().filter((r) => r.approvalPhase !== null);
    expect(approvalRecords.map((r) => `${r.toolKind}:${r.approvalPhase}:${r.approvalOutcome}`)).toEqual([
      'service:proposal_validation:not_found',
      // Written before the transition (an approval nobody could record does not happen), then its outcome.
      'approver:decision:authorized',
      'approver:decision:approved',
      'service:proposal_validation:approved',
      'service:execution_validation:approved',
      'service:consumption:consumed',
    ]);
    expect(approvalRecords.slice(1).every((r) => r.receiptFingerprint === fingerprintString(challenge.receiptId))).toBe(
      true,
    );
    expect(JSON.stringify(evidence.decisions())).not.toContain(challenge.receiptId);
  });

  it('fails at boot when a capability requires confirmation without a receipt store', async () => {
    const fixture = documentsFixture();
    const needsApproval = defineCapability(
      {
        name: 'documents.purge',
        description: 'Purge',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number() }),
        resolveTarget: fromProposal(() => new Document(1, 'acme', 'alice', 't')),
        executionTarget: fixture.refreshPolicy,
        requiresConfirmation: requiresConfirmation({ bind: () => ({}), reason: 'irreversible' }),
      },
      () => 'purged',
    );
    await expect(fixture.boot({ capabilities: [needsApproval] })).rejects.toThrow(VerdictConfigurationError);
  });
});
