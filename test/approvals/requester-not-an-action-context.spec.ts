import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ActionContext, VerdictConfigurationError } from '@verdict/nestjs';
import { alice, support } from './batch.fixture.js';
import { BATCH_CALLS, approvalUi, httpContext, pendingBatchFixture } from './pending-batch.fixture.js';

/**
 * docs/approvals.md "Who asked is always bound": a requester that is not an action context (`null`, not an object,
 * no tenant or a blank one) gets `VerdictConfigurationError` from every requester-scoped lookup before the store is
 * read — never a `TypeError`, never "nothing pending", and never the deprecated unscoped lookup that only an absent
 * requester (`undefined`) takes. An actor the key names nobody by stays "asked for nothing" (§4).
 */
describe('a requester that is not an action context', () => {
  let fixture: Awaited<ReturnType<typeof pendingBatchFixture>>;
  beforeAll(async () => {
    fixture = await pendingBatchFixture();
  });
  afterAll(async () => fixture.close());

  const objects: [string, unknown][] = [
    ['a context without a tenant', { actor: alice.actor, metadata: alice.metadata }],
    ['a context with a blank tenant', { ...alice, tenant: '  ' }],
    ['a string', 'alice'],
  ];

  describe.each([['null', null], ...objects])('attack: %s', (_label, value) => {
    const requester = value as ActionContext;

    it('challengeForToolCall and pending throw VerdictConfigurationError, for her call id as for none', async () => {
      const before = fixture.evidence.decisions().length;
      for (const id of ['call_mine', 'call_none']) {
        await expect(fixture.approvals.challengeForToolCall(id, requester)).rejects.toThrow(
          /requester is not an action context/,
        );
        await expect(fixture.approvals.pending([id], requester)).rejects.toThrow(VerdictConfigurationError);
      }
      await expect(fixture.approvals.pending([], requester)).rejects.toThrow(VerdictConfigurationError);
      await fixture.expectNothingChanged(before);
    });

    it.each(BATCH_CALLS)('ApprovalBatchService.%s throws VerdictConfigurationError', async (method) => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.callBatch(method, fixture.batchId, requester)).rejects.toThrow(VerdictConfigurationError);
      await fixture.expectNothingChanged(before);
    });

    it("ApprovalService.untrustedContent throws VerdictConfigurationError, for no receipt as for alice's", async () => {
      await fixture.expectUntrustedContentRefused(requester);
    });
  });

  it.each(BATCH_CALLS)(
    'attack: ApprovalBatchService.%s without a requester throws VerdictConfigurationError',
    async (method) => {
      const before = fixture.evidence.decisions().length;
      await expect(fixture.callBatch(method, fixture.batchId, undefined as never)).rejects.toThrow(
        VerdictConfigurationError,
      );
      await fixture.expectNothingChanged(before);
    },
  );

  describe.each([
    ['a null context', null],
    ['a context without a tenant', { actor: support.context.actor }],
  ])('attack: an approver with %s', (_label, context) => {
    const approver = { ...support, context: context as ActionContext };

    it.each([
      ['ApprovalBatchService.read', () => fixture.batches.read(fixture.batchId, approver, alice)],
      [
        'ApprovalBatchService.decide',
        () => fixture.batches.decide(fixture.batchId, fixture.decideAll, approver, alice),
      ],
      [
        'ApprovalService.untrustedContent',
        () => fixture.approvals.untrustedContent(fixture.receiptId, approver, approvalUi, alice),
      ],
    ])('%s throws VerdictConfigurationError; nothing changes', async (_method, call) => {
      const before = fixture.evidence.decisions().length;
      await expect(call()).rejects.toThrow(VerdictConfigurationError);
      await fixture.expectNothingChanged(before);
    });
  });

  it.each(objects)('attack: the approval guard fails with VerdictConfigurationError for %s', async (_label, value) => {
    const before = fixture.evidence.decisions().length;
    await expect(fixture.guardFor(value as ActionContext).canActivate(httpContext('call_mine'))).rejects.toThrow(
      VerdictConfigurationError,
    );
    await fixture.expectNothingChanged(before);
  });

  it('control: a requester whose actor the key names nobody by (a blank actor) asked for nothing: null and []', async () => {
    const nobody = { ...alice, actor: '  ' } as ActionContext;
    expect(await fixture.approvals.challengeForToolCall('call_mine', nobody)).toBeNull();
    expect(await fixture.approvals.pending(['call_mine'], nobody)).toEqual([]);
  });

  it('control: a requester hook answering null is still 403', async () => {
    await expect(fixture.guardFor(null as never).canActivate(httpContext('call_mine'))).rejects.toMatchObject({
      status: 403,
    });
  });

  it("control: alice's own context finds, lists and reads her pending call; the deprecated unscoped lookup still finds it", async () => {
    expect(await fixture.approvals.challengeForToolCall('call_mine', alice)).toMatchObject({ toolCallId: 'call_mine' });
    expect(await fixture.approvals.pending(['call_mine', 'call_none'], alice)).toEqual([
      expect.objectContaining({ toolCallId: 'call_mine' }),
    ]);
    expect(await fixture.batches.read(fixture.batchId, support, alice)).toMatchObject({
      allowed: true,
      batchId: fixture.batchId,
    });
    expect(await fixture.approvals.challengeForToolCall('call_mine')).toMatchObject({ receiptId: fixture.receiptId });
    // An absent requester lists nothing: pending requires one.
    await expect(fixture.approvals.pending(['call_mine'], undefined as never)).rejects.toThrow(
      VerdictConfigurationError,
    );
  });
});
