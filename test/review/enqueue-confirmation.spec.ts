import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  DeferredExecutionWorker,
  type CapabilityDefinition,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ProvenanceSource,
  ReviewService,
  ProvenanceWindow,
  Trust,
  labelContent,
  withProvenance,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  requiresConfirmation,
} from '@verdict/nestjs';
import { type RefundArguments, type RefundOrder, refundFixture } from '@verdict/testing-kit';

const T0 = new Date('2026-03-01T09:00:00.000Z');
const CALL = 'call_refund_1';

/**
 * `VerdictService.enqueue` of a capability that requires confirmation (docs/review-lane.md §3): the human's approval
 * is carried by `{ explicitApproval: true }`, consumed when the call is queued, and the worker runs it at most once.
 */
async function setup({
  work = true,
  enforce = true,
  lane = true,
  registered = true,
  shared,
}: {
  work?: boolean;
  enforce?: boolean;
  /** Whether the module has a review lane at all. */
  lane?: boolean;
  /** Whether this process registers the confirmed refund (a worker deployed without it does not). */
  registered?: boolean;
  /** The stores of another "process" of the same application, to share. */
  shared?: { items: InMemoryReviewItemStore; receipts: InMemoryApprovalReceiptStore; queue: InProcessDeferredQueue };
} = {}) {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  /** The unreviewed refund, confirmed by the customer and bound to the order's version. */
  const confirmed: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
    {
      ...(fixture.resend as ReturnType<typeof defineCapability<RefundArguments, RefundOrder, string>>),
      name: 'orders.refund-confirmed',
      requiresConfirmation: requiresConfirmation<RefundArguments, RefundOrder>({
        bind: (_envelope, order) => ({ order: order.id, version: order.version }),
        reason: 'Refunds are confirmed by the customer.',
      }),
      enforce,
    },
    fixture.resend.executor as never,
  );
  const items = shared?.items ?? new InMemoryReviewItemStore();
  const receipts = shared?.receipts ?? new InMemoryApprovalReceiptStore();
  const queue = shared?.queue ?? new InProcessDeferredQueue({ attempts: 1 });
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: registered ? [confirmed] : [fixture.resend],
        evidence,
        approvals: receipts,
        executionClaims: new InMemoryExecutionClaimStore(),
        clock: () => T0,
        ...(lane ? { review: { items, queue, rehydrate: fixture.rehydrate, actorKey: fixture.actorKey, work } } : {}),
      }),
    ],
  }).compile();
  await moduleRef.init();
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const customer = fixture.contextOf('customer:72', 'conversation-1');
  const proposal = { capability: 'orders.refund-confirmed', arguments: { orderId: 1002, amount: 5 }, toolCallId: CALL };
  const asCustomer = <T>(fn: () => Promise<T>) => contexts.run(customer, fn);
  /** The customer asks (a pending receipt is issued), then approves that exact tool call. */
  const approve = async () => {
    const asked = await asCustomer(() => verdict.execute(proposal));
    if (asked.executed) throw new Error('executed without confirmation');
    expect(asked.decision.disposition).toBe('require_confirmation');
    await approvals.approve(asked.challenge!.receiptId, CALL, 'customer:72');
  };
  const startWorker = () => {
    const worker = moduleRef.get(DeferredExecutionWorker);
    return queue.work((job) => worker.run(job));
  };
  return {
    ...fixture,
    verdict,
    approvals,
    reviews: moduleRef.get(ReviewService),
    receipts,
    items,
    queue,
    evidence,
    refunds,
    proposal,
    asCustomer,
    approve,
    startWorker,
  };
}

describe('VerdictService.enqueue of a capability that requires confirmation', () => {
  it('attack: without a review lane, enqueue fails before any step and the approval stays unspent (control: it executes)', async () => {
    const app = await setup({ lane: false });
    await app.approve();
    await expect(app.asCustomer(() => app.verdict.enqueue(app.proposal, { explicitApproval: true }))).rejects.toThrow(
      new VerdictConfigurationError('No review lane is configured: pass `review` to VerdictModule.forRoot.'),
    );
    expect(app.evidence.decisions().filter((record) => record.approvalPhase === 'consumption')).toEqual([]);
    // The customer's approval still runs the call it approved, once.
    const executed = await app.asCustomer(() => app.verdict.execute(app.proposal, { explicitApproval: true }));
    expect(executed.executed).toBe(true);
    expect(app.refunds).toHaveLength(1);
  });

  it('attack: a worker that does not register the capability fails the job: nothing recorded as a refusal, the item stays approved', async () => {
    const web = await setup({ work: false });
    await web.approve();
    const { items, receipts, queue } = web;
    expect(
      (await web.asCustomer(() => web.verdict.enqueue(web.proposal, { explicitApproval: true }))).decision,
    ).toMatchObject({
      disposition: 'permit',
      stage: 'review',
    });
    const worker = await setup({ registered: false, shared: { items, receipts, queue } });
    await queue.idle();
    expect(queue.failed.map(({ error }) => (error as Error).message)).toEqual([
      expect.stringContaining('This worker does not register capability "orders.refund-confirmed"'),
    ]);
    expect(worker.evidence.decisions()).toEqual([]);
    const { itemId } = queue.failed[0]!.job;
    expect(await items.find(itemId)).toMatchObject({ status: 'approved' });
    // Control: re-queued by an operator once a worker with the capability runs, it executes, once.
    const complete = await setup({ registered: true, shared: { items, receipts, queue } });
    expect(await complete.reviews.requeue(itemId, { by: 'operator:7' })).toMatchObject({ outcome: 'requeued' });
    await queue.idle();
    expect(complete.refunds).toHaveLength(1);
  });

  it('attack: a call queued in shadow mode, without an approval, is asked again once confirmation is enforced', async () => {
    const shadow = await setup({ enforce: false, work: false });
    const queued = await shadow.asCustomer(() => shadow.verdict.enqueue(shadow.proposal));
    expect(queued.decision).toMatchObject({ disposition: 'permit', stage: 'review' });

    // The rollout flips enforcement while the item waits; the enforcing process's worker runs it.
    const { items, receipts, queue } = shadow;
    const enforced = await setup({ shared: { items, receipts, queue } });
    await queue.idle();

    expect(shadow.refunds).toHaveLength(0);
    expect(enforced.refunds).toHaveLength(0);
    const deferred = enforced.evidence.decisions().filter((record) => record.toolKind === 'deferred');
    expect(deferred.map((record) => record.approvalOutcome)).not.toContain('consumed_when_queued');
    expect(deferred.at(-1)?.disposition).toBe('require_confirmation');
  });

  it('utility: a call queued in shadow mode runs in shadow mode, its confirmation recorded as would_confirm', async () => {
    const { verdict, asCustomer, proposal, queue, refunds, evidence } = await setup({ enforce: false });
    await asCustomer(() => verdict.enqueue(proposal));
    await queue.idle();

    expect(refunds).toHaveLength(1);
    const deferred = evidence.decisions().filter((record) => record.toolKind === 'deferred');
    expect(deferred.map((record) => record.disposition)).toContain('would_confirm');
    expect(deferred.map((record) => record.approvalOutcome)).not.toContain('consumed_when_queued');
  });

  it('attack: an approved call is queued with its explicit approval, spent once; no replay queues or runs it again', async () => {
    const { verdict, asCustomer, approve, proposal, queue, refunds, evidence } = await setup();
    await approve();

    const queued = await asCustomer(() => verdict.enqueue(proposal, { explicitApproval: true }));
    expect(queued).toMatchObject({ executed: false, decision: { disposition: 'permit', stage: 'review' } });
    await queue.idle();
    expect(refunds.map((refund) => refund.arguments)).toEqual([{ orderId: 1002, amount: 5 }]);

    // The approval was consumed when the call was queued: queuing it again, or executing it, is a replay.
    for (const again of [
      await asCustomer(() => verdict.enqueue(proposal, { explicitApproval: true })),
      await asCustomer(() => verdict.execute(proposal, { explicitApproval: true })),
    ])
      expect(again.decision).toMatchObject({
        disposition: 'deny',
        stage: 'approval',
        signal: 'approval_replay_detected',
      });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    // The worker's run records that it did not ask again: the approval was spent by the enqueue.
    const approvalRecords = evidence.decisions().filter((record) => record.stage === 'approval');
    expect(approvalRecords.map((record) => [record.toolKind, record.approvalPhase, record.approvalOutcome])).toEqual(
      expect.arrayContaining([
        ['service', 'consumption', 'consumed'],
        ['deferred', 'proposal_validation', 'consumed_when_queued'],
        ['deferred', 'execution_validation', 'consumed_when_queued'],
      ]),
    );
  });

  it('attack: the worker meets the state the human approved — an order changed after the call was queued is refused', async () => {
    const { verdict, asCustomer, approve, proposal, queue, refunds, bumpVersion, startWorker, evidence } = await setup({
      work: false,
    });
    await approve();
    const queued = await asCustomer(() => verdict.enqueue(proposal, { explicitApproval: true }));
    expect(queued.decision).toMatchObject({ disposition: 'permit', stage: 'review' });

    bumpVersion(1002);
    await startWorker();
    await queue.idle();

    // The approval covered the order as it was: the worker asks again, and nobody answers a worker.
    expect(refunds).toHaveLength(0);
    expect(
      evidence
        .decisions()
        .filter((record) => record.toolKind === 'deferred')
        .at(-1),
    ).toMatchObject({
      stage: 'approval',
      disposition: 'require_confirmation',
    });
  });

  it('control: without an explicit approval it is asked, as by execute, and nothing is queued', async () => {
    const { verdict, asCustomer, approve, proposal, queue, refunds, items } = await setup();

    const asked = await asCustomer(() => verdict.enqueue(proposal));
    expect(asked).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(asked.executed ? undefined : asked.challenge).toMatchObject({
      toolCallId: CALL,
      capability: 'orders.refund-confirmed',
    });
    // Approved, but a model's repeat of the call carries no explicit approval: still asked, still nothing queued.
    await approve();
    const repeated = await asCustomer(() => verdict.enqueue(proposal));
    expect(repeated.decision.disposition).toBe('require_confirmation');
    await queue.idle();
    expect(refunds).toHaveLength(0);
    expect(await items.pending({ tenant: 'acme', now: T0 })).toEqual([]);
  });

  it('control: a malformed approvalBatch throws before any step runs, as for execute', async () => {
    const { verdict, asCustomer, proposal, refunds } = await setup();
    await expect(asCustomer(() => verdict.enqueue(proposal, { approvalBatch: ' ' }))).rejects.toThrow(
      VerdictConfigurationError,
    );
    expect(refunds).toHaveLength(0);
  });

  it('utility: a call a provenance policy asked to confirm, approved and queued from its window, runs on the worker', async () => {
    const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
    const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
    const asked: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
      {
        ...(fixture.resend as ReturnType<typeof defineCapability<RefundArguments, RefundOrder, string>>),
        name: 'orders.refund-asked',
        provenance: { untrustedContext: 'require_confirmation' },
      },
      fixture.resend.executor as never,
    );
    const queue = new InProcessDeferredQueue({ attempts: 1 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [asked],
          evidence: new InMemoryEvidenceRecorder(),
          approvals: new InMemoryApprovalReceiptStore(),
          executionClaims: new InMemoryExecutionClaimStore(),
          clock: () => T0,
          review: {
            items: new InMemoryReviewItemStore(),
            queue,
            rehydrate: fixture.rehydrate,
            actorKey: fixture.actorKey,
          },
        }),
      ],
    }).compile();
    await moduleRef.init();
    const [contexts, verdict] = [moduleRef.get(ActionContextStore), moduleRef.get(VerdictService)];
    const window = ProvenanceWindow.of([
      labelContent('Refund my order.', ProvenanceSource.user('principal'), Trust.Trusted),
      labelContent('A fetched page.', ProvenanceSource.tool('web.fetch'), Trust.Untrusted),
    ]);
    const inWindow = <T>(fn: () => Promise<T>) =>
      contexts.run(fixture.contextOf('customer:72', 'conversation-1'), () => withProvenance(window, fn));
    const proposal = { capability: 'orders.refund-asked', arguments: { orderId: 1002, amount: 5 }, toolCallId: CALL };

    const first = await inWindow(() => verdict.execute(proposal));
    if (first.executed) throw new Error('executed without confirmation');
    expect(first.decision.disposition).toBe('require_confirmation');
    await moduleRef.get(ApprovalService).approve(first.challenge!.receiptId, CALL, 'customer:72');
    const queued = await inWindow(() => verdict.enqueue(proposal, { explicitApproval: true }));
    expect(queued.decision).toMatchObject({ disposition: 'permit', stage: 'review' });
    await queue.idle();

    expect(refunds.map((refund) => refund.arguments)).toEqual([{ orderId: 1002, amount: 5 }]);
    await moduleRef.close();
  });
});
