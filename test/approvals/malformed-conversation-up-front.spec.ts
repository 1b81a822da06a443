import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  approvalBatchId,
  UnknownApprovalReceiptError,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { alice, support } from './batch.fixture.js';
import { BATCH_CALLS, approvalUi, httpContext, pendingBatchFixture } from './pending-batch.fixture.js';

/**
 * docs/approvals.md "Who asked is always bound": a requester whose conversation id is malformed gets
 * `VerdictConfigurationError` from every lookup — never "nothing pending" — even when no receipt is pending at all
 * (the check used to run only against a pending receipt of a registered capability).
 */
describe('a requester with a malformed conversation id, and nothing pending', () => {
  let fixture: Awaited<ReturnType<typeof pendingBatchFixture>>;
  beforeAll(async () => {
    fixture = await pendingBatchFixture();
  });
  afterAll(async () => fixture.close());

  const malformed: [string, unknown][] = [
    ['an object', { id: 'c-1' }],
    ['a boolean', true],
    ['NaN', Number.NaN],
    ['a blank string', '  '],
  ];
  const requesterWith = (conversationId: unknown): ActionContext => ({ ...alice, metadata: { conversationId } });
  const none = approvalBatchId({ conversation: 'c-1', message: 'no such turn' });

  describe.each(malformed)('attack: conversation id that is %s', (_label, conversationId) => {
    const requester = requesterWith(conversationId);

    it('challengeForToolCall throws VerdictConfigurationError', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.approvals.challengeForToolCall('call_none', requester)).rejects.toThrow(
        VerdictConfigurationError,
      );
      await fixture.expectNothingChanged(before);
    });

    it('pending throws VerdictConfigurationError (an empty list of ids too)', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.approvals.pending(['call_none'], requester)).rejects.toThrow(/conversationId/);
      await expect(fixture.approvals.pending([], requester)).rejects.toThrow(VerdictConfigurationError);
      await fixture.expectNothingChanged(before);
    });

    it.each(BATCH_CALLS)('ApprovalBatchService.%s throws VerdictConfigurationError', async (method) => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.callBatch(method, none, requester)).rejects.toThrow(VerdictConfigurationError);
      await fixture.expectNothingChanged(before);
    });

    it("ApprovalService.untrustedContent throws VerdictConfigurationError, for no receipt as for alice's", async () => {
      await fixture.expectUntrustedContentRefused(requester);
    });

    it('the approval guard fails with VerdictConfigurationError, not 409', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.guardFor(requester).canActivate(httpContext('call_none'))).rejects.toThrow(
        VerdictConfigurationError,
      );
      await fixture.expectNothingChanged(before);
    });
  });

  describe.each([
    ['a string', 'c-2'],
    ['a number', 7],
    ['absent', undefined],
    ['null', null],
  ])('control: conversation id that is %s', (_label, conversationId) => {
    const requester = requesterWith(conversationId);

    it('challengeForToolCall answers null and pending []', async () => {
      expect(await fixture.approvals.challengeForToolCall('call_none', requester)).toBeNull();
      expect(await fixture.approvals.pending(['call_none'], requester)).toEqual([]);
    });

    it('ApprovalBatchService answers not_found / null / false', async () => {
      expect(await fixture.batches.read(none, support, requester)).toEqual({ allowed: false, outcome: 'not_found' });
      expect(await fixture.batches.decide(none, fixture.decideAll, support, requester)).toEqual({
        outcome: 'not_found',
      });
      expect(await fixture.batches.pending(none, requester)).toBeNull();
      expect(await fixture.batches.isDecided(none, requester)).toBe(false);
    });

    it("ApprovalService.untrustedContent: no receipt is unknown, alice's is not_found", async () => {
      await expect(fixture.approvals.untrustedContent('rcpt_none', support, approvalUi, requester)).rejects.toThrow(
        UnknownApprovalReceiptError,
      );
      expect(await fixture.approvals.untrustedContent(fixture.receiptId, support, approvalUi, requester)).toEqual({
        allowed: false,
        outcome: 'not_found',
      });
    });

    it('the approval guard answers 409', async () => {
      await expect(fixture.guardFor(requester).canActivate(httpContext('call_none'))).rejects.toMatchObject({
        status: 409,
      });
    });
  });

  it("control: alice's own context still finds, reads and decides her pending call", async () => {
    expect(await fixture.approvals.challengeForToolCall('call_mine', alice)).toMatchObject({ toolCallId: 'call_mine' });
    expect(await fixture.approvals.untrustedContent(fixture.receiptId, support, approvalUi, alice)).toMatchObject({
      allowed: true,
      items: [],
    });
    expect(await fixture.batches.read(fixture.batchId, support, alice)).toMatchObject({
      allowed: true,
      batchId: fixture.batchId,
    });
    expect(await fixture.batches.decide(fixture.batchId, fixture.decideAll, support, alice)).toMatchObject({
      outcome: 'decided',
    });
  });
});
