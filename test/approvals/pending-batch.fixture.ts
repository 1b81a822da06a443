import { expect } from '@jest/globals';
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
 * The {@link batchFixture} with one call of alice's pending in a batch (`call_mine`), so that a lookup that must
 * change nothing has something to change: its batch and receipt, a decision of the whole batch, a check that nothing
 * changed, and the approval guard as `@ApprovalEndpoint()` runs it for a requester.
 */
export async function pendingBatchFixture() {
  const store = new InMemoryApprovalReceiptStore();
  const fixture = await batchFixture(store);
  const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
  expect(await fixture.propose('call_mine', 1, { approvalBatch: batchId })).toMatchObject({
    decision: { disposition: 'require_confirmation' },
  });
  const receiptId = (await fixture.approvals.challengeForToolCall('call_mine', alice))!.receiptId;
  const decideAll: ApprovalBatchItemDecision[] = [{ toolCallId: 'call_mine', decision: 'approve' }];

  /** Nothing was decided: alice's own call is still the one pending, and no decision was recorded. */
  async function expectNothingChanged(recordedBefore: number) {
    expect(await fixture.approvals.pending(['call_mine'], alice)).toEqual([
      expect.objectContaining({ toolCallId: 'call_mine' }),
    ]);
    expect(fixture.evidence.decisions().length).toBe(recordedBefore);
    expect(fixture.archived).toEqual([]);
  }

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

  /** `ApprovalBatchService.<method>` of `batch` for `requester`, `support` approving (a decision: of the whole batch). */
  function callBatch(method: BatchCall, batch: string, requester: ActionContext): Promise<unknown> {
    switch (method) {
      case 'read':
        return fixture.batches.read(batch, support, requester);
      case 'decide':
        return fixture.batches.decide(batch, decideAll, support, requester);
      case 'pending':
        return fixture.batches.pending(batch, requester);
      case 'isDecided':
        return fixture.batches.isDecided(batch, requester);
    }
  }

  /** `untrustedContent` throws `VerdictConfigurationError` for `requester`, for no receipt as for alice's; nothing changes. */
  async function expectUntrustedContentRefused(requester: ActionContext) {
    const before = fixture.evidence.decisions().length;
    for (const id of ['rcpt_none', receiptId])
      await expect(fixture.approvals.untrustedContent(id, support, approvalUi, requester)).rejects.toThrow(
        VerdictConfigurationError,
      );
    await expectNothingChanged(before);
  }

  return {
    ...fixture,
    batchId,
    receiptId,
    decideAll,
    expectNothingChanged,
    guardFor,
    callBatch,
    expectUntrustedContentRefused,
  };
}

/** Where the approval UI shows untrusted content. */
export const approvalUi = { destination: Destination.connection('approval-ui', 'staff') };

/** The requester-scoped calls of `ApprovalBatchService`. */
export const BATCH_CALLS = ['read', 'decide', 'pending', 'isDecided'] as const;
export type BatchCall = (typeof BATCH_CALLS)[number];

/** An HTTP request for the approval endpoint of `toolCallId`, as Nest hands the guard one. */
export function httpContext(toolCallId: string): ExecutionContext {
  const request = { params: { toolCallId } };
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}
