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
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { alice, batchFixture, support } from './batch.fixture.js';

/**
 * docs/approvals.md "Who asked is always bound": a requester that is not an action context (`null`, not an object,
 * no tenant or a blank one) gets `VerdictConfigurationError` from every requester-scoped lookup before the store is
 * read — never a `TypeError`, never "nothing pending", and never the deprecated unscoped lookup that only an absent
 * requester (`undefined`) takes. An actor the key names nobody by stays "asked for nothing" (§4).
 */
describe('a requester that is not an action context', () => {
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

  const approvalUi = { destination: Destination.connection('approval-ui', 'staff') };
  const objects: [string, unknown][] = [
    ['a context without a tenant', { actor: alice.actor, metadata: alice.metadata }],
    ['a context with a blank tenant', { ...alice, tenant: '  ' }],
    ['a string', 'alice'],
  ];

  /** Nothing was decided: alice's own call is still the one pending, and no decision was recorded. */
  async function expectNothingChanged(recordedBefore: number) {
    expect(await fixture.approvals.pending(['call_mine'], alice)).toEqual([
      expect.objectContaining({ toolCallId: 'call_mine' }),
    ]);
    expect(fixture.evidence.decisions().length).toBe(recordedBefore);
    expect(fixture.archived).toEqual([]);
  }

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
      await expectNothingChanged(before);
    });

    it.each([
      ['read', () => fixture.batches.read(batchId, support, requester)],
      ['decide', () => fixture.batches.decide(batchId, decideAll, support, requester)],
      ['pending', () => fixture.batches.pending(batchId, requester)],
      ['isDecided', () => fixture.batches.isDecided(batchId, requester)],
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
  });

  it.each([
    ['read', () => fixture.batches.read(batchId, support, undefined as never)],
    ['decide', () => fixture.batches.decide(batchId, decideAll, support, undefined as never)],
    ['pending', () => fixture.batches.pending(batchId, undefined as never)],
    ['isDecided', () => fixture.batches.isDecided(batchId, undefined as never)],
  ])('attack: ApprovalBatchService.%s without a requester throws VerdictConfigurationError', async (_method, call) => {
    const before = fixture.evidence.decisions().length;
    await expect(call()).rejects.toThrow(VerdictConfigurationError);
    await expectNothingChanged(before);
  });

  it.each(objects)('attack: the approval guard fails with VerdictConfigurationError for %s', async (_label, value) => {
    const before = fixture.evidence.decisions().length;
    await expect(guardFor(value as ActionContext).canActivate(httpContext('call_mine'))).rejects.toThrow(
      VerdictConfigurationError,
    );
    await expectNothingChanged(before);
  });

  it('control: a requester whose actor the key names nobody by (a blank actor) asked for nothing: null and []', async () => {
    const nobody = { ...alice, actor: '  ' } as ActionContext;
    expect(await fixture.approvals.challengeForToolCall('call_mine', nobody)).toBeNull();
    expect(await fixture.approvals.pending(['call_mine'], nobody)).toEqual([]);
  });

  it('control: a requester hook answering null is still 403', async () => {
    await expect(guardFor(null as never).canActivate(httpContext('call_mine'))).rejects.toMatchObject({ status: 403 });
  });

  it("control: alice's own context finds, lists and reads her pending call; the deprecated unscoped lookup still finds it", async () => {
    expect(await fixture.approvals.challengeForToolCall('call_mine', alice)).toMatchObject({ toolCallId: 'call_mine' });
    expect(await fixture.approvals.pending(['call_mine', 'call_none'], alice)).toEqual([
      expect.objectContaining({ toolCallId: 'call_mine' }),
    ]);
    expect(await fixture.batches.read(batchId, support, alice)).toMatchObject({ allowed: true, batchId });
    expect(await fixture.approvals.challengeForToolCall('call_mine')).toMatchObject({ receiptId });
    // An absent requester lists nothing: pending requires one.
    await expect(fixture.approvals.pending(['call_mine'], undefined as never)).rejects.toThrow(
      VerdictConfigurationError,
    );
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
