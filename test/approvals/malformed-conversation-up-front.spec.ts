import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import {
  type AbilityFactory,
  type ActionContext,
  type ApprovalBatchItemDecision,
  ApprovalEndpointGuard,
  type ApprovalEndpointHooks,
  approvalBatchId,
  Destination,
  InMemoryApprovalReceiptStore,
  UnknownApprovalReceiptError,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';

/**
 * docs/approvals.md "Who asked is always bound": a requester whose conversation id is malformed gets
 * `VerdictConfigurationError` from every lookup — never "nothing pending" — even when no receipt is pending at all
 * (the check used to run only against a pending receipt of a registered capability).
 */
describe('a requester with a malformed conversation id, and nothing pending', () => {
  let fixture: Awaited<ReturnType<typeof batchFixture>>;
  let store: InMemoryApprovalReceiptStore;
  /** A batch of alice's with one pending call, so "nothing changes" has something to change. */
  let batchId: string;
  /** The receipt of alice's pending call. */
  let receiptId: string;
  const decideAll: ApprovalBatchItemDecision[] = [{ toolCallId: 'call_mine', decision: 'approve' }];
  beforeAll(async () => {
    store = new InMemoryApprovalReceiptStore();
    fixture = await batchFixture(store);
    batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    expect(await fixture.propose('call_mine', 1, { approvalBatch: batchId })).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    receiptId = (await fixture.approvals.challengeForToolCall('call_mine', alice))!.receiptId;
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
  const approvalUi = { destination: Destination.connection('approval-ui', 'staff') };

  /** Nothing was decided: alice's own call is still the one pending, and no decision was recorded. */
  async function expectNothingChanged(recordedBefore: number) {
    expect(await fixture.approvals.pending(['call_mine'], alice)).toEqual([
      expect.objectContaining({ toolCallId: 'call_mine' }),
    ]);
    expect(fixture.evidence.decisions().length).toBe(recordedBefore);
    expect(fixture.archived).toEqual([]);
  }

  describe.each(malformed)('attack: conversation id that is %s', (_label, conversationId) => {
    const requester = requesterWith(conversationId);

    it('challengeForToolCall throws VerdictConfigurationError', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.approvals.challengeForToolCall('call_none', requester)).rejects.toThrow(
        VerdictConfigurationError,
      );
      await expectNothingChanged(before);
    });

    it('pending throws VerdictConfigurationError (an empty list of ids too)', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.approvals.pending(['call_none'], requester)).rejects.toThrow(/conversationId/);
      await expect(fixture.approvals.pending([], requester)).rejects.toThrow(VerdictConfigurationError);
      await expectNothingChanged(before);
    });

    it.each([
      ['read', () => fixture.batches.read(none, support, requester)],
      ['decide', () => fixture.batches.decide(none, decideAll, support, requester)],
      ['pending', () => fixture.batches.pending(none, requester)],
      ['isDecided', () => fixture.batches.isDecided(none, requester)],
    ])('ApprovalBatchService.%s throws VerdictConfigurationError', async (_method, call) => {
      const before = fixture.evidence.decisions().length;
      await expect(call()).rejects.toThrow(VerdictConfigurationError);
      await expectNothingChanged(before);
    });

    it("ApprovalService.untrustedContent throws VerdictConfigurationError, for no receipt as for alice's", async () => {
      const before = fixture.evidence.decisions().length;
      for (const id of ['rcpt_none', receiptId])
        await expect(fixture.approvals.untrustedContent(id, support, approvalUi, requester)).rejects.toThrow(
          VerdictConfigurationError,
        );
      await expectNothingChanged(before);
    });

    it('the approval guard fails with VerdictConfigurationError, not 409', async () => {
      const before = fixture.evidence.decisions().length;
      await expect(guardFor(requester).canActivate(httpContext('call_none'))).rejects.toThrow(
        VerdictConfigurationError,
      );
      await expectNothingChanged(before);
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
      expect(await fixture.batches.decide(none, decideAll, support, requester)).toEqual({ outcome: 'not_found' });
      expect(await fixture.batches.pending(none, requester)).toBeNull();
      expect(await fixture.batches.isDecided(none, requester)).toBe(false);
    });

    it("ApprovalService.untrustedContent: no receipt is unknown, alice's is not_found", async () => {
      await expect(fixture.approvals.untrustedContent('rcpt_none', support, approvalUi, requester)).rejects.toThrow(
        UnknownApprovalReceiptError,
      );
      expect(await fixture.approvals.untrustedContent(receiptId, support, approvalUi, requester)).toEqual({
        allowed: false,
        outcome: 'not_found',
      });
    });

    it('the approval guard answers 409', async () => {
      await expect(guardFor(requester).canActivate(httpContext('call_none'))).rejects.toMatchObject({ status: 409 });
    });
  });

  it("control: alice's own context still finds, reads and decides her pending call", async () => {
    expect(await fixture.approvals.challengeForToolCall('call_mine', alice)).toMatchObject({ toolCallId: 'call_mine' });
    expect(await fixture.approvals.untrustedContent(receiptId, support, approvalUi, alice)).toMatchObject({
      allowed: true,
      items: [],
    });
    expect(await fixture.batches.read(batchId, support, alice)).toMatchObject({ allowed: true, batchId });
    expect(await fixture.batches.decide(batchId, decideAll, support, alice)).toMatchObject({ outcome: 'decided' });
  });

  /** The guard as `@ApprovalEndpoint()` runs it, with `support` approving for `requester`. */
  function guardFor(requester: ActionContext): ApprovalEndpointGuard {
    const approvalEndpoint: ApprovalEndpointHooks = {
      approver: () => support,
      requester: () => requester,
      canAccessToolCall: (_approver, _toolCallId, _executionContext, _requester) => true,
    };
    // CASL and the containment check come after the lookup: no case here reaches them.
    const abilityFactory: AbilityFactory = {
      createForContext: () => {
        throw new Error('not reached');
      },
    };
    const options = { approvals: store, approvalEndpoint, abilityFactory };
    return new ApprovalEndpointGuard(fixture.approvals, undefined as never, options);
  }
});

function httpContext(toolCallId: string): ExecutionContext {
  const request = { params: { toolCallId } };
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}
