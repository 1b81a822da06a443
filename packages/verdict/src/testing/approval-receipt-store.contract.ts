import { AssertionError } from 'node:assert';
import { randomBytes } from 'node:crypto';
import type {
  ApprovalReceiptStore,
  PendingReceiptLimits,
  ReceiptDecision,
  ReceiptIssue,
  ReceiptKey,
  ReceiptOutcome,
  ReceiptTransition,
} from '../approvals/approval-receipt-store.interface.js';
import type { ApprovalReceipt } from '../approvals/approval-receipt.js';
import { ReceiptStatus } from '../approvals/receipt-status.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';
import { APPROVER_PROVENANCE as PROVENANCE } from './approver-provenance.sample.js';

/** An approval receipt store under test. */
export interface ApprovalReceiptStoreHarness {
  readonly store: ApprovalReceiptStore;
  close(): Promise<void>;
}

const { Pending, Approved, Rejected, Superseded, Consumed } = ReceiptStatus;
/** Every receipt of the suite is issued at `at(0)` and expires at `at(EXPIRES)`, unless a test says otherwise. */
const EXPIRES = 900;

/**
 * The behaviour every {@link ApprovalReceiptStore} adapter must share (docs/approvals.md): issue-or-keep per
 * (tool call, capability, binding) with terminal rows never replaced, the pending lookup and its exact
 * expiry boundary, approve/reject only with the exact receipt and tool-call ids from pending before
 * expiry, read-only validation in the order not_found → mismatch → expired → invalid_state →
 * approved | consumed, single consumption with replays answered `consumed`, the pending-receipt caps of
 * a limited issue (one pending receipt per principal, conversation and tool call, counted under any of the
 * limits' `askerFingerprints`, and `maxPending` per
 * principal and capability, refusals written nowhere; the principal and conversation fingerprints stored; another binding a
 * `mismatch` only against the receipts of the key's principal and conversation, when it names them), exact id comparison and millisecond UTC instants. Every expectation is an exact outcome, so a suite that passes on several
 * engines proves they answer alike. `setup` runs once before the suite and `close` once after it; each
 * test uses tool-call ids of its own. Concurrency across OS processes is proven separately.
 *
 * @example
 * describeApprovalReceiptStoreContract('memory', async () => ({ store: new InMemoryApprovalReceiptStore(), close: async () => {} }));
 */
export function describeApprovalReceiptStoreContract(
  engineLabel: string,
  setup: () => Promise<ApprovalReceiptStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, optionalIt, beforeAll, afterAll } = suiteHooks(options);
  describe(`ApprovalReceiptStore contract [${engineLabel}]`, () => {
    let harness: ApprovalReceiptStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const store = () => harness.store;

    /** Receipts in each state, issued through the store itself. */
    const given = {
      async pending(overrides: Partial<ReceiptIssue> = {}): Promise<ApprovalReceipt> {
        return store().issue(issueRequest(overrides));
      },
      async approved(overrides: Partial<ReceiptIssue> = {}): Promise<ApprovalReceipt> {
        return transitioned(await store().approve(decision(await given.pending(overrides))));
      },
      async rejected(overrides: Partial<ReceiptIssue> = {}): Promise<ApprovalReceipt> {
        return transitioned(await store().reject(decision(await given.pending(overrides))));
      },
      async consumed(overrides: Partial<ReceiptIssue> = {}): Promise<ApprovalReceipt> {
        const approved = await given.approved(overrides);
        const check = await store().consume(keyOf(approved), at(120));
        expect(check.outcome).toBe('approved');
        return check.receipt!;
      },
    };
    type State = keyof typeof given;

    describe('batches (ADR 0102; stores with inBatch and decideBatch, skipped without both)', () => {
      /** Three pending receipts of a new batch, each with its arguments. */
      const batchOf = async () => {
        const batchId = newFingerprint();
        const receipts = [];
        for (const n of [1, 2, 3])
          receipts.push(await given.pending({ batch: { id: batchId, arguments: { n, note: 'ü' } } }));
        return { batchId, receipts };
      };
      const items = (receipts: readonly ApprovalReceipt[], verdicts: Array<'approve' | 'reject' | 'supersede'>) =>
        receipts.map((r, index) => ({ receiptId: r.id, toolCallId: r.toolCallId, verdict: verdicts[index] }));
      const decideBatch = (request: Parameters<NonNullable<ApprovalReceiptStore['decideBatch']>>[0]) =>
        store().decideBatch!(request);
      /**
       * What the store lacks to be tested in batches: `undefined` with both `decideBatch` and `inBatch`, a reason
       * with neither (the tests are skipped); exactly one of them is half a batch API, refused.
       */
      const withoutBatches = (): string | undefined => {
        const { decideBatch, inBatch } = store();
        if (decideBatch !== undefined && inBatch !== undefined) return undefined;
        if (decideBatch === undefined && inBatch === undefined)
          return 'the store keeps no batches (no decideBatch, no inBatch)';
        const [has, lacks] = decideBatch === undefined ? ['inBatch', 'decideBatch'] : ['decideBatch', 'inBatch'];
        throw new AssertionError({
          message:
            `Half a batch API: the store has ${has} but no ${lacks}. Implement both (ADR 0102), or neither: ` +
            'the confirmation gate and ApprovalBatchService use batches only with both.',
        });
      };
      const batchIt = (name: string, fn: () => Promise<void>) => optionalIt(name, withoutBatches, fn);

      it('has decideBatch and inBatch both, or neither: half a batch API is refused', () => {
        withoutBatches();
      });

      batchIt('keeps the batch id and the arguments of each receipt issued in it', async () => {
        const { batchId, receipts } = await batchOf();
        expect(receipts.map((r) => [r.batchId, r.arguments])).toEqual(
          [1, 2, 3].map((n) => [batchId, { n, note: 'ü' }]),
        );
        expect(byId(await store().inBatch!(batchId))).toEqual(byId(receipts));
      });

      batchIt('decides every item at once, clearing the arguments', async () => {
        const { batchId, receipts } = await batchOf();
        const transition = await decideBatch({
          batchId,
          items: items(receipts, ['approve', 'reject', 'reject']),
          by: 'staff:1',
          now: at(60),
        });
        expect(transition.outcome).toBe('decided');
        const stored = byId(await store().inBatch!(batchId));
        expect(stored.map((r) => r.status).sort()).toEqual([Approved, Rejected, Rejected]);
        expect(stored.every((r) => r.arguments === null)).toBe(true);
        expect(byId([...(transition.outcome === 'decided' ? transition.receipts : [])])).toEqual(stored);
        expect(await store().consume(keyOf(receipts[0]), at(61))).toMatchObject({ outcome: 'approved' });
      });

      batchIt(
        'supersedes an edited item: another binding of its call is not found, its own is refused (ADR 0124)',
        async () => {
          const { batchId, receipts } = await batchOf();
          const transition = await decideBatch({
            batchId,
            items: items(receipts, ['supersede', 'reject', 'approve']),
            by: 'staff:1',
            now: at(60),
          });
          expect(transition.outcome).toBe('decided');
          const [edited, rejected] = receipts;
          const stored = byId(await store().inBatch!(batchId)).find((r) => r.id === edited!.id)!;
          expect(stored).toMatchObject({ status: Superseded, rejectedBy: 'staff:1', arguments: null });
          // The edited call, proposed again with the approver's arguments: a new proposal, not changed arguments.
          const editedKey = { ...keyOf(edited!), bindingFingerprint: newFingerprint() };
          expect(await store().validate(editedKey, at(61))).toEqual({ outcome: 'not_found', receipt: null });
          expect(await store().consume(keyOf(edited!), at(61))).toMatchObject({ outcome: 'invalid_state' });
          // A rejected call proposed with other arguments is still a changed approval.
          const rejectedKey = { ...keyOf(rejected!), bindingFingerprint: newFingerprint() };
          expect(await store().validate(rejectedKey, at(61))).toEqual({ outcome: 'mismatch', receipt: null });
        },
      );

      batchIt('clears the arguments of a batched receipt approved or rejected on its own', async () => {
        const { batchId, receipts } = await batchOf();
        const decision = (r: ApprovalReceipt) => ({
          receiptId: r.id,
          toolCallId: r.toolCallId,
          by: 'staff:1',
          now: at(60),
        });
        expect(await store().approve(decision(receipts[0]))).toMatchObject({
          outcome: 'approved',
          receipt: { arguments: null },
        });
        expect(await store().reject(decision(receipts[1]))).toMatchObject({
          outcome: 'rejected',
          receipt: { arguments: null },
        });
        const stored = await store().inBatch!(batchId);
        expect(Object.fromEntries(stored.map((r) => [r.id, r.arguments]))).toEqual({
          [receipts[0].id]: null,
          [receipts[1].id]: null,
          [receipts[2].id]: { n: 3, note: 'ü' },
        });
      });

      batchIt('refuses a batch decided before, changing nothing', async () => {
        const { batchId, receipts } = await batchOf();
        const request = { batchId, items: items(receipts, ['reject', 'reject', 'reject']), by: 'staff:1', now: at(60) };
        expect((await decideBatch(request)).outcome).toBe('decided');
        const after = byId(await store().inBatch!(batchId));
        expect(await decideBatch({ ...request, items: items(receipts, ['approve', 'approve', 'approve']) })).toEqual({
          outcome: 'invalid_state',
        });
        expect(byId(await store().inBatch!(batchId))).toEqual(after);
      });

      batchIt('refuses items that are not exactly the pending receipts of the batch, changing nothing', async () => {
        const { batchId, receipts } = await batchOf();
        const other = await given.pending();
        const now = at(60);
        const by = 'staff:1';
        const all = items(receipts, ['approve', 'approve', 'approve']);
        for (const wrong of [
          all.slice(0, 2),
          [...all, { receiptId: other.id, toolCallId: other.toolCallId, verdict: 'approve' as const }],
          [...all.slice(0, 2), all[1]],
          [{ ...all[0], toolCallId: other.toolCallId }, ...all.slice(1)],
        ])
          expect(await decideBatch({ batchId, items: wrong, by, now })).toEqual({ outcome: 'invalid_state' });
        expect((await store().inBatch!(batchId)).every((r) => r.status === Pending)).toBe(true);
        expect(await store().find(other.id)).toEqual(other);
      });

      batchIt('answers expired for a batch with an expired item, and not_found for an unknown batch', async () => {
        const { batchId, receipts } = await batchOf();
        const all = items(receipts, ['approve', 'approve', 'approve']);
        expect(await decideBatch({ batchId, items: all, by: 'staff:1', now: at(EXPIRES) })).toEqual({
          outcome: 'expired',
        });
        expect((await store().inBatch!(batchId)).every((r) => r.status === Pending)).toBe(true);
        expect(await decideBatch({ batchId: newFingerprint(), items: all, by: 'staff:1', now: at(60) })).toEqual({
          outcome: 'not_found',
        });
      });

      batchIt('of racing decisions of one batch exactly one applies', async () => {
        const { batchId, receipts } = await batchOf();
        const outcomes = await Promise.all(
          (['approve', 'reject', 'approve', 'reject'] as const).map((verdict) =>
            decideBatch({ batchId, items: items(receipts, [verdict, verdict, verdict]), by: 'staff:1', now: at(60) }),
          ),
        );
        expect(outcomes.filter((o) => o.outcome === 'decided')).toHaveLength(1);
        expect(new Set((await store().inBatch!(batchId)).map((r) => r.status)).size).toBe(1);
      });
    });

    describe('issue', () => {
      it('issues a pending receipt with the candidate id, reason, description, subject and expiry, and no decision', async () => {
        const request = issueRequest();

        const receipt = await store().issue(request);
        expect(receipt).toEqual({
          id: request.candidateId,
          toolCallId: request.toolCallId,
          capability: request.capability,
          bindingFingerprint: request.bindingFingerprint,
          status: Pending,
          reason: request.reason,
          description: request.description,
          subject: request.subject,
          expiresAt: request.expiresAt,
          approvedBy: null,
          approvedAt: null,
          rejectedBy: null,
          rejectedAt: null,
          consumedAt: null,
          createdAt: request.now,
          updatedAt: request.now,
          principalFingerprint: null,
          conversationFingerprint: null,
          provenance: null,
          // Stores that keep batches (ADR 0102) say so of a receipt asked on its own; others need not.
          ...(store().decideBatch === undefined || store().inBatch === undefined
            ? {}
            : { batchId: null, arguments: null }),
        });
        expect(await store().find(request.candidateId)).toEqual(receipt);
      });

      it('keeps the provenance summary it was issued with, through every transition', async () => {
        const receipt = await given.consumed({ provenance: PROVENANCE });

        expect(receipt.provenance).toEqual(PROVENANCE);
        expect((await store().find(receipt.id))?.provenance).toEqual(PROVENANCE);
        expect((await store().validate(keyOf(receipt), at(121))).receipt?.provenance).toEqual(PROVENANCE);
      });

      it('stores a receipt without description or subject with both null', async () => {
        const request = issueRequest({ description: null, subject: null });

        expect(await store().issue(request)).toMatchObject({
          id: request.candidateId,
          description: null,
          subject: null,
        });
        expect(await store().find(request.candidateId)).toMatchObject({ description: null, subject: null });
      });

      it.each(['pending', 'approved', 'rejected', 'consumed'] as const)(
        'returns the existing %s row for the same key unchanged, whatever the new request says',
        async (state) => {
          const existing = await given[state]();
          const again = issueRequest({
            ...keyOf(existing),
            reason: 'another reason',
            description: null,
            subject: { ownerId: 'customer:99' },
            expiresAt: at(9000),
            now: at(600),
          });

          expect(await store().issue(again)).toEqual(existing);
          expect(await store().find(existing.id)).toEqual(existing);
          expect(await store().find(again.candidateId)).toBeNull();
        },
      );

      it('keeps an expired pending receipt too: issuing again does not revive it', async () => {
        const expired = await given.pending({ expiresAt: at(30) });
        const again = issueRequest({ ...keyOf(expired), expiresAt: at(9000), now: at(60) });

        expect(await store().issue(again)).toEqual(expired);
        expect(await store().pendingForToolCall(expired.toolCallId, at(60))).toEqual([]);
        expect(await store().validate(keyOf(expired), at(60))).toEqual({ outcome: 'expired', receipt: expired });
      });

      it('gives the same tool-call id with another binding a receipt of its own: the lookup then sees both', async () => {
        const first = await given.pending();
        const second = await given.pending({ toolCallId: first.toolCallId });

        expect(second.id).not.toBe(first.id);
        expect(byId(await store().pendingForToolCall(first.toolCallId, at(1)))).toEqual(byId([first, second]));
      });

      it('gives the same tool call and binding under another capability a receipt of its own', async () => {
        const first = await given.approved();
        const other = await given.pending({
          toolCallId: first.toolCallId,
          bindingFingerprint: first.bindingFingerprint,
          capability: 'orders.refund',
        });

        expect(other).toMatchObject({ status: Pending, capability: 'orders.refund' });
        expect(await store().validate(keyOf(first), at(100))).toEqual({ outcome: 'approved', receipt: first });
      });

      it('keeps every instant as a UTC instant, to the millisecond', async () => {
        const request = issueRequest({
          now: new Date('2024-02-29T23:59:59.999Z'),
          expiresAt: new Date('2024-03-01T00:14:59.987Z'),
        });
        const pending = await store().issue(request);
        const approvedAt = new Date('2024-03-01T00:00:00.001Z');
        const consumedAt = new Date('2024-03-01T00:14:59.986Z');

        const approval = await store().approve(decision(pending, { now: approvedAt }));
        const consumption = await store().consume(keyOf(pending), consumedAt);
        const rejected = await store().issue(issueRequest({ now: request.now, expiresAt: request.expiresAt }));
        await store().reject(decision(rejected, { now: approvedAt }));

        expect(await store().find(pending.id)).toEqual({
          ...pending,
          status: Consumed,
          approvedBy: 'customer:72',
          approvedAt,
          consumedAt,
          updatedAt: consumedAt,
        });
        expect(approval).toMatchObject({
          receipt: { createdAt: request.now, expiresAt: request.expiresAt, approvedAt },
        });
        expect(consumption.receipt).toEqual(await store().find(pending.id));
        expect(await store().find(rejected.id)).toMatchObject({
          createdAt: request.now,
          expiresAt: request.expiresAt,
          rejectedAt: approvedAt,
          updatedAt: approvedAt,
        });
      });
    });

    describe('issue with limits', () => {
      const limited = (limits: PendingReceiptLimits, overrides: Partial<ReceiptIssue> = {}) => ({
        ...issueRequest(overrides),
        limits,
      });

      it('issues a pending receipt under the caps, exactly as without limits', async () => {
        const request = limited(newLimits(2));
        const receipt = await store().issue(request);

        expect(receipt).toMatchObject({
          id: request.candidateId,
          status: Pending,
          toolCallId: request.toolCallId,
          expiresAt: request.expiresAt,
        });
        expect(await store().find(request.candidateId)).toEqual(receipt);
      });

      it("refuses a second pending receipt of the principal's tool call under any capability (null), and writes nothing", async () => {
        const limits = newLimits(10);
        const first = await store().issue(limited(limits));
        const sameCapability = limited(limits, { toolCallId: first!.toolCallId });
        const otherCapability = limited(limits, { toolCallId: first!.toolCallId, capability: 'orders.refund' });

        expect(await store().issue(sameCapability)).toBeNull();
        expect(await store().issue(otherCapability)).toBeNull();
        expect(await store().find(sameCapability.candidateId)).toBeNull();
        expect(await store().find(otherCapability.candidateId)).toBeNull();
        expect(await store().pendingForToolCall(first!.toolCallId, at(1))).toEqual([first]);
      });

      it('lets another principal issue for the same tool call (the lookup then sees both: an ambiguous id approves nothing)', async () => {
        const first = await store().issue(limited(newLimits(1)));
        const other = await store().issue(limited(newLimits(1), { toolCallId: first!.toolCallId }));

        expect(other).toMatchObject({ status: Pending, toolCallId: first!.toolCallId });
      });

      it.each(['approved', 'rejected', 'consumed'] as const)(
        'lets a new receipt of the tool call follow a %s one',
        async (state) => {
          const limits = newLimits(1);
          const decided = await given[state]({ limits });
          const next = await store().issue(limited(limits, { toolCallId: decided.toolCallId, now: at(130) }));

          expect(next).toMatchObject({ status: Pending, toolCallId: decided.toolCallId });
        },
      );

      it('counts a pending receipt until the millisecond before it expires, and not from its expiry on', async () => {
        const limits = newLimits(1);
        const first = await store().issue(limited(limits, { expiresAt: at(30) }));

        expect(await store().issue(limited(limits, { now: justBefore(at(30)) }))).toBeNull();
        expect(await store().issue(limited(limits, { toolCallId: first!.toolCallId, now: at(30) }))).toMatchObject({
          status: Pending,
        });
      });

      it('refuses the receipt past maxPending per capability; another capability and decided receipts do not count', async () => {
        const limits = newLimits(2);
        const [one, two] = [await store().issue(limited(limits)), await store().issue(limited(limits))];
        expect([one?.status, two?.status]).toEqual([Pending, Pending]);

        const third = limited(limits);
        expect(await store().issue(third)).toBeNull();
        expect(await store().find(third.candidateId)).toBeNull();
        expect(await store().issue(limited(limits, { capability: 'orders.refund' }))).toMatchObject({
          status: Pending,
        });

        await store().reject(decision(one!));
        expect(await store().issue(limited(limits))).toMatchObject({ status: Pending, capability: 'orders.cancel' });
        expect(await store().issue(limited(limits))).toBeNull();
      });

      it("validates another binding as mismatch only against the asking principal's receipts of the conversation; another's is not_found", async () => {
        const limits = newLimits(5, 'conversation:1');
        const asked = await store().issue(limited(limits));
        const changed = { ...keyOf(asked!), bindingFingerprint: fingerprint({ other: newId() }) };
        const mine = {
          ...changed,
          principalFingerprint: limits.principalFingerprint,
          conversationFingerprint: limits.conversationFingerprint,
        };
        expect(await store().validate(mine, at(1))).toEqual({ outcome: 'mismatch', receipt: null });
        // Another principal, or the same one in another conversation, under the same tool-call id.
        const theirs = { ...mine, principalFingerprint: newLimits(1).principalFingerprint };
        const elsewhere = { ...mine, conversationFingerprint: fingerprint('conversation:2') };
        expect(await store().validate(theirs, at(1))).toEqual({ outcome: 'not_found', receipt: null });
        expect(await store().validate(elsewhere, at(1))).toEqual({ outcome: 'not_found', receipt: null });
        expect(await store().consume(theirs, at(1))).toEqual({ outcome: 'not_found', receipt: null });
        // A key that names nobody counts every receipt of the tool call, as before.
        expect(await store().validate(changed, at(1))).toEqual({ outcome: 'mismatch', receipt: null });
      });

      it('returns the existing row of the key unchanged even at the caps', async () => {
        const limits = newLimits(1);
        const existing = await store().issue(limited(limits));

        expect(await store().issue(limited(limits, { ...keyOf(existing!), reason: 'another reason' }))).toEqual(
          existing,
        );
      });

      it("stores the limits' principal and conversation fingerprints with the receipt, and returns them on every read", async () => {
        const limits = newLimits(2, 'thread-a');
        const receipt = await store().issue(limited(limits));

        expect(receipt).toMatchObject({
          principalFingerprint: limits.principalFingerprint,
          conversationFingerprint: limits.conversationFingerprint,
        });
        expect(await store().find(receipt!.id)).toEqual(receipt);
        expect(await store().pendingForToolCall(receipt!.toolCallId, at(1))).toEqual([receipt]);
        const approved = transitioned(await store().approve(decision(receipt!)));
        expect(approved).toMatchObject({
          principalFingerprint: limits.principalFingerprint,
          conversationFingerprint: limits.conversationFingerprint,
        });
      });

      it("lets the principal hold one pending receipt of a tool call per conversation; the same conversation's second is refused", async () => {
        const limits = newLimits(10, 'thread-a');
        const first = await store().issue(limited(limits));
        const otherConversation = limited(
          { ...limits, conversationFingerprint: fingerprint('thread-b') },
          { toolCallId: first!.toolCallId },
        );
        const sameConversation = limited(limits, { toolCallId: first!.toolCallId, capability: 'orders.refund' });

        expect(await store().issue(otherConversation)).toMatchObject({
          status: Pending,
          toolCallId: first!.toolCallId,
        });
        expect(await store().issue(sameConversation)).toBeNull();
        expect(await store().find(sameConversation.candidateId)).toBeNull();
        expect(
          await store().issue(
            limited({ ...limits, conversationFingerprint: fingerprint('thread-b') }, { toolCallId: first!.toolCallId }),
          ),
        ).toBeNull();
      });

      it("refuses a pending receipt of the tool call in the conversation under any of the asker's fingerprints (askerFingerprints)", async () => {
        // One actor under two actor keys (ADR 0184): `byId` for one capability, the actor itself for another.
        const byId = newLimits(10, 'thread-a');
        const itself = { ...newLimits(10, 'thread-a'), askerFingerprints: [byId.principalFingerprint] };
        const first = await store().issue(limited(byId));
        const other = limited(itself, { toolCallId: first!.toolCallId, capability: 'orders.refund' });

        expect(await store().issue(other)).toBeNull();
        expect(await store().find(other.candidateId)).toBeNull();
        expect(await store().pendingForToolCall(first!.toolCallId, at(1))).toEqual([first]);
        // Symmetric: the fingerprints name the asker whichever of its keys issued first.
        const second = await store().issue(limited(itself));
        expect(
          await store().issue(
            limited(
              { ...byId, askerFingerprints: [itself.principalFingerprint] },
              { toolCallId: second!.toolCallId, capability: 'orders.refund' },
            ),
          ),
        ).toBeNull();
      });

      it('lets the asker issue under a tool call pending only for fingerprints it does not name, or in another conversation', async () => {
        const limits = newLimits(10, 'thread-a');
        const first = await store().issue(limited(limits));
        const stranger = { ...newLimits(10, 'thread-a'), askerFingerprints: [newLimits(1).principalFingerprint] };
        const elsewhere = {
          ...newLimits(10, 'thread-b'),
          askerFingerprints: [limits.principalFingerprint],
        };

        expect(await store().issue(limited(stranger, { toolCallId: first!.toolCallId }))).toMatchObject({
          status: Pending,
        });
        expect(await store().issue(limited(elsewhere, { toolCallId: first!.toolCallId }))).toMatchObject({
          status: Pending,
        });
      });

      it("counts maxPending under the limits' principal only, whatever its askerFingerprints", async () => {
        const limits = newLimits(1, 'thread-a');
        await store().issue(limited(limits));
        const other = { ...newLimits(1, 'thread-a'), askerFingerprints: [limits.principalFingerprint] };

        expect(await store().issue(limited(other))).toMatchObject({ status: Pending });
        expect(await store().issue(limited(other))).toBeNull();
      });

      it("refuses, without a conversation fingerprint, any second pending receipt of the principal's tool call, whatever its conversation", async () => {
        const limits = newLimits(10, 'thread-a');
        const first = await store().issue(limited(limits));
        const { conversationFingerprint: _none, ...withoutConversation } = limits;

        expect(await store().issue(limited(withoutConversation, { toolCallId: first!.toolCallId }))).toBeNull();
      });

      it("counts maxPending across the principal's conversations", async () => {
        const limits = newLimits(2, 'thread-a');
        await store().issue(limited(limits));
        await store().issue(limited({ ...limits, conversationFingerprint: fingerprint('thread-b') }));

        expect(
          await store().issue(limited({ ...limits, conversationFingerprint: fingerprint('thread-c') })),
        ).toBeNull();
      });

      it('never counts receipts issued without limits', async () => {
        const limits = newLimits(1);
        const unlimited = await given.pending();

        expect(await store().issue(limited(limits, { toolCallId: unlimited.toolCallId }))).toMatchObject({
          status: Pending,
        });
      });
    });

    describe('pendingForToolCall', () => {
      it('lists only the pending, unexpired receipts of that tool call, under any capability', async () => {
        const toolCallId = newToolCallId();
        const pending = await given.pending({ toolCallId });
        await given.approved({ toolCallId });
        await given.rejected({ toolCallId });
        await given.consumed({ toolCallId });
        await given.pending({ toolCallId, expiresAt: at(30) });
        const otherCapability = await given.pending({ toolCallId, capability: 'orders.refund' });
        await given.pending({ toolCallId, capability: 'orders.refund', expiresAt: at(30) });
        await given.pending({ toolCallId: `${toolCallId}-other` });

        expect(byId(await store().pendingForToolCall(toolCallId, at(150)))).toEqual(byId([pending, otherCapability]));
      });

      it('lists a receipt up to the millisecond before it expires, and not from its expiry on (now >= expiresAt)', async () => {
        const receipt = await given.pending();

        expect(await store().pendingForToolCall(receipt.toolCallId, justBefore(at(EXPIRES)))).toEqual([receipt]);
        expect(await store().pendingForToolCall(receipt.toolCallId, at(EXPIRES))).toEqual([]);
      });

      it('answers an empty list for an unknown tool call', async () => {
        expect(await store().pendingForToolCall(newToolCallId(), at(0))).toEqual([]);
      });
    });

    describe.each([
      ['approve', Approved, 'approvedBy', 'approvedAt'],
      ['reject', Rejected, 'rejectedBy', 'rejectedAt'],
    ] as const)('%s', (method, status, byField, atField) => {
      const decide = (request: ReceiptDecision) => store()[method](request);

      it(`moves a pending receipt to ${status} with its exact receipt id and tool-call id, storing by and at`, async () => {
        const pending = await given.pending();
        const request = decision(pending);
        const expected = { ...pending, status, [byField]: request.by, [atField]: request.now, updatedAt: request.now };

        expect(await decide(request)).toEqual({ outcome: status, receipt: expected });
        expect(await store().find(pending.id)).toEqual(expected);
      });

      it('answers not_found for the receipt id with another tool-call id, and changes nothing', async () => {
        const pending = await given.pending();
        const other = await given.pending();

        for (const toolCallId of [other.toolCallId, newToolCallId()]) {
          expect(await decide(decision(pending, { toolCallId }))).toEqual({ outcome: 'not_found' });
        }
        expect(await store().find(pending.id)).toEqual(pending);
      });

      it("answers not_found for an unknown receipt id or another tool call's receipt id, and changes nothing", async () => {
        const pending = await given.pending();
        const other = await given.pending();

        expect(await decide(decision(pending, { receiptId: newId() }))).toEqual({ outcome: 'not_found' });
        expect(await decide(decision(pending, { receiptId: other.id }))).toEqual({ outcome: 'not_found' });
        expect(await store().find(pending.id)).toEqual(pending);
        expect(await store().find(other.id)).toEqual(other);
      });

      it('answers expired from the instant the receipt expires, and changes nothing; a millisecond before, it applies', async () => {
        const late = await given.pending();
        const inTime = await given.pending();

        expect(await decide(decision(late, { now: at(EXPIRES) }))).toEqual({ outcome: 'expired' });
        expect(await store().find(late.id)).toEqual(late);
        expect(await decide(decision(inTime, { now: justBefore(at(EXPIRES)) }))).toMatchObject({ outcome: status });
      });

      it.each([
        ['an approved', 'approved'],
        ['a rejected', 'rejected'],
        ['a consumed', 'consumed'],
      ] as const)('answers invalid_state for %s receipt, and keeps the first decision', async (_label, state) => {
        const decided = await given[state]();

        expect(await decide(decision(decided, { by: 'customer:99', now: at(130) }))).toEqual({
          outcome: 'invalid_state',
        });
        expect(await store().find(decided.id)).toEqual(decided);
      });
    });

    describe('approve and reject racing', () => {
      it('apply exactly one of 20 concurrent decisions on one receipt; the row keeps that one', async () => {
        const pending = await given.pending();
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            store()[index % 2 ? 'reject' : 'approve'](decision(pending, { by: `approver:${index}` })),
          ),
        );

        const applied = outcomes.filter((outcome) => outcome.outcome === Approved || outcome.outcome === Rejected);
        expect(applied).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome.outcome === 'invalid_state')).toHaveLength(19);
        expect(await store().find(pending.id)).toEqual('receipt' in applied[0]! ? applied[0].receipt : null);
      });
    });

    describe('validate', () => {
      type Case = [
        string,
        ReceiptOutcome,
        () => Promise<{ key: ReceiptKey; now: Date; receipt: ApprovalReceipt | null }>,
      ];
      const cases: Case[] = [
        [
          'no receipt for the tool call',
          'not_found',
          async () => ({ key: keyOf(issueRequest()), now: at(100), receipt: null }),
        ],
        [
          'receipts of the tool call under another capability only',
          'not_found',
          async () => {
            const other = await given.approved({ capability: 'orders.refund' });
            return { key: { ...keyOf(other), capability: 'orders.cancel' }, now: at(100), receipt: null };
          },
        ],
        [
          'a receipt of the tool call and capability with another binding',
          'mismatch',
          async () => {
            const other = await given.approved();
            return { key: { ...keyOf(other), bindingFingerprint: newFingerprint() }, now: at(100), receipt: null };
          },
        ],
        [
          'another binding whose receipt has expired (mismatch comes before expired)',
          'mismatch',
          async () => {
            const other = await given.approved();
            return { key: { ...keyOf(other), bindingFingerprint: newFingerprint() }, now: at(EXPIRES), receipt: null };
          },
        ],
        ['a pending receipt at its expiry', 'expired', async () => atExpiry(await given.pending())],
        ['an approved receipt at its expiry', 'expired', async () => atExpiry(await given.approved())],
        [
          'a rejected receipt at its expiry (expired comes before invalid_state)',
          'expired',
          async () => atExpiry(await given.rejected()),
        ],
        ['a consumed receipt at its expiry', 'expired', async () => atExpiry(await given.consumed())],
        ['a pending receipt', 'invalid_state', async () => beforeExpiry(await given.pending())],
        ['a rejected receipt', 'invalid_state', async () => beforeExpiry(await given.rejected())],
        [
          'an approved receipt, a millisecond before its expiry',
          'approved',
          async () => beforeExpiry(await given.approved()),
        ],
        ['a consumed receipt', 'consumed', async () => beforeExpiry(await given.consumed())],
      ];

      it.each(cases)('%s → %s, and the row is unchanged', async (_case, outcome, arrange) => {
        const { key, now, receipt } = await arrange();

        expect(await store().validate(key, now)).toEqual({ outcome, receipt });
        expect(await store().validate(key, now)).toEqual({ outcome, receipt });
        if (receipt !== null) expect(await store().find(receipt.id)).toEqual(receipt);
      });

      it('never consumes: a validated approved receipt is still consumable once', async () => {
        const approved = await given.approved();
        await store().validate(keyOf(approved), at(100));

        expect(await store().consume(keyOf(approved), at(101))).toMatchObject({
          outcome: 'approved',
          receipt: { status: Consumed },
        });
      });
    });

    describe('consume', () => {
      it('consumes an approved receipt once; a replay answers consumed and changes nothing', async () => {
        const approved = await given.approved();
        const expected = { ...approved, status: Consumed, consumedAt: at(120), updatedAt: at(120) };

        expect(await store().consume(keyOf(approved), at(120))).toEqual({ outcome: 'approved', receipt: expected });
        expect(await store().find(approved.id)).toEqual(expected);
        expect(await store().consume(keyOf(approved), at(121))).toEqual({ outcome: 'consumed', receipt: expected });
        expect(await store().find(approved.id)).toEqual(expected);
      });

      type Refusal = [
        string,
        ReceiptOutcome,
        State,
        (receipt: ApprovalReceipt) => { key: ReceiptKey; now: Date; receipt: ApprovalReceipt | null },
      ];
      const refusals: Refusal[] = [
        ['a pending receipt', 'invalid_state', 'pending', beforeExpiry],
        ['a rejected receipt', 'invalid_state', 'rejected', beforeExpiry],
        ['an approved receipt at its expiry', 'expired', 'approved', atExpiry],
        [
          'another binding of the tool call',
          'mismatch',
          'approved',
          (r) => ({ key: { ...keyOf(r), bindingFingerprint: newFingerprint() }, now: at(100), receipt: null }),
        ],
        [
          'another capability',
          'not_found',
          'approved',
          (r) => ({ key: { ...keyOf(r), capability: 'orders.refund' }, now: at(100), receipt: null }),
        ],
        [
          'another tool call',
          'not_found',
          'approved',
          (r) => ({ key: { ...keyOf(r), toolCallId: newToolCallId() }, now: at(100), receipt: null }),
        ],
      ];

      it.each(refusals)('refuses %s → %s, and changes nothing', async (_case, outcome, state, arrange) => {
        const existing = await given[state]();
        const { key, now, receipt } = arrange(existing);

        expect(await store().consume(key, now)).toEqual({ outcome, receipt });
        expect(await store().find(existing.id)).toEqual(existing);
      });

      it('consumes an approved receipt a millisecond before its expiry', async () => {
        const approved = await given.approved();

        expect(await store().consume(keyOf(approved), justBefore(at(EXPIRES)))).toMatchObject({
          outcome: 'approved',
          receipt: { status: Consumed },
        });
      });

      it('consumes each binding of a shared tool-call id separately', async () => {
        const first = await given.approved();
        const second = await given.approved({ toolCallId: first.toolCallId });

        expect(await store().consume(keyOf(first), at(120))).toMatchObject({
          outcome: 'approved',
          receipt: { id: first.id },
        });
        expect(await store().validate(keyOf(second), at(121))).toEqual({ outcome: 'approved', receipt: second });
        expect(await store().consume(keyOf(second), at(122))).toMatchObject({
          outcome: 'approved',
          receipt: { id: second.id },
        });
        expect(await store().consume(keyOf(first), at(123))).toMatchObject({
          outcome: 'consumed',
          receipt: { id: first.id },
        });
      });

      it('lets exactly one of 20 concurrent consumptions consume; the others answer consumed', async () => {
        const approved = await given.approved();
        const checks = await Promise.all(Array.from({ length: 20 }, () => store().consume(keyOf(approved), at(120))));

        expect(checks.filter((check) => check.outcome === 'approved')).toHaveLength(1);
        expect(checks.filter((check) => check.outcome === 'consumed')).toHaveLength(19);
        expect(new Set(checks.map((check) => check.receipt?.id))).toEqual(new Set([approved.id]));
      });
    });

    describe('prune (retention)', () => {
      // Last in the suite: a prune sees every receipt the suite issued (all of them at(0)..at(121)).
      const pruneIt = (name: string, fn: (prune: NonNullable<ApprovalReceiptStore['prune']>) => Promise<void>) =>
        optionalIt(
          name,
          () => (store().prune === undefined ? 'the store does not prune (no prune)' : undefined),
          () => fn(store().prune!.bind(store())),
        );
      pruneIt(
        'removes consumed, rejected and expired receipts older than the date; a consumed one still refuses its replay',
        async (prune) => {
          const consumed = await given.consumed();
          const rejected = await given.rejected();
          const live = await given.approved({ expiresAt: new Date('2099-01-01T00:00:00.000Z') });
          // Another binding of the consumed call's id (a provider reusing ids), still pending after the prune.
          const sameCall = await given.pending({
            toolCallId: consumed.toolCallId,
            expiresAt: new Date('2099-01-01T00:00:00.000Z'),
          });

          const report = await prune(at(100_000));
          expect(report.tombstones > 0).toBe(true);
          expect(await store().find(consumed.id)).toBeNull();
          expect(await store().find(rejected.id)).toBeNull();
          // The replay of the pruned consumed receipt is still refused, by validation and by consumption.
          expect(await store().validate(keyOf(consumed), at(100_001))).toEqual({ outcome: 'consumed', receipt: null });
          expect(await store().consume(keyOf(consumed), at(100_001))).toEqual({ outcome: 'consumed', receipt: null });
          // Whatever other receipts its tool call still has.
          expect(await store().find(sameCall.id)).toEqual(sameCall);
          expect(sameCall.bindingFingerprint).not.toBe(consumed.bindingFingerprint);
          // Control: an unexpired approved receipt stays consumable, and a key never seen is still not_found.
          expect(await store().find(live.id)).toEqual(live);
          expect((await store().consume(keyOf(live), at(100_001))).outcome).toBe('approved');
          expect(await store().validate({ ...keyOf(consumed), toolCallId: newToolCallId() }, at(100_001))).toEqual({
            outcome: 'not_found',
            receipt: null,
          });
        },
      );

      pruneIt('keeps receipts decided on or after the date', async (prune) => {
        const consumed = await given.consumed();
        expect(await prune(at(120))).toMatchObject({ pruned: 0 });
        expect((await store().find(consumed.id))?.status).toBe('consumed');
      });
    });

    describe('ids', () => {
      it('compares ids exactly: another letter case or a trailing space is another id', async () => {
        const pending = await given.pending({ toolCallId: `call_AbC_${newId()}` });
        const variants = [pending.toolCallId.toLowerCase(), `${pending.toolCallId} `];

        for (const toolCallId of variants) {
          expect(await store().approve(decision(pending, { toolCallId }))).toEqual({ outcome: 'not_found' });
          expect(await store().pendingForToolCall(toolCallId, at(1))).toEqual([]);
          expect(await store().validate({ ...keyOf(pending), toolCallId }, at(1))).toEqual({
            outcome: 'not_found',
            receipt: null,
          });
        }
        expect(await store().approve(decision(pending, { receiptId: swapCase(pending.id) }))).toEqual({
          outcome: 'not_found',
        });
        expect(await store().find(`${pending.id} `)).toBeNull();

        const lowerCase = await given.pending({ ...keyOf(pending), toolCallId: variants[0] });
        expect(lowerCase.id).not.toBe(pending.id);
        expect(await store().find(pending.id)).toEqual(pending);
      });
    });
  });
}

/** An instant `seconds` after a fixed, leap-day origin with milliseconds. */
function at(seconds: number): Date {
  return new Date(Date.UTC(2024, 1, 29, 12, 0, 0, 123) + seconds * 1000);
}

function justBefore(instant: Date): Date {
  return new Date(instant.getTime() - 1);
}

function newId(): string {
  return randomBytes(32).toString('base64url');
}

function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

function newFingerprint(): string {
  return fingerprint({
    capability: 'orders.cancel',
    execution_target_policy: 'refresh',
    arguments: { orderId: newId() },
    binding: { actor: 'customer:72' },
  });
}

/** Limits of a principal of its own. */
function newLimits(maxPending: number, conversation?: string | number | null): PendingReceiptLimits {
  const principalFingerprint = fingerprint({ actor: { id: newId() }, tenant: 'tenant:eu-1' });
  return conversation === undefined
    ? { principalFingerprint, maxPending }
    : { principalFingerprint, maxPending, conversationFingerprint: fingerprint(conversation) };
}

function issueRequest(overrides: Partial<ReceiptIssue> = {}): ReceiptIssue {
  return {
    toolCallId: newToolCallId(),
    capability: 'orders.cancel',
    bindingFingerprint: newFingerprint(),
    candidateId: newId(),
    reason: 'Ünïcode reason: "cancelling an order cannot be undone"',
    description: 'Order #1042 (2 items), placed 2024-02-28',
    subject: {
      ownerId: 'customer:72',
      tenantId: 'tenant:eu-1',
      orderId: 'order:1042',
      tags: ['ü', 'express'],
      version: 3,
    },
    expiresAt: at(EXPIRES),
    now: at(0),
    ...overrides,
  };
}

function keyOf({ toolCallId, capability, bindingFingerprint }: ReceiptKey): ReceiptKey {
  return { toolCallId, capability, bindingFingerprint };
}

function decision(receipt: ApprovalReceipt, overrides: Partial<ReceiptDecision> = {}): ReceiptDecision {
  return { receiptId: receipt.id, toolCallId: receipt.toolCallId, by: 'customer:72', now: at(60), ...overrides };
}

function transitioned(transition: ReceiptTransition): ApprovalReceipt {
  if (!('receipt' in transition)) throw new Error(`Expected the transition to apply, got ${transition.outcome}.`);
  return transition.receipt;
}

function atExpiry(receipt: ApprovalReceipt) {
  return { key: keyOf(receipt), now: receipt.expiresAt, receipt };
}

function beforeExpiry(receipt: ApprovalReceipt) {
  return { key: keyOf(receipt), now: justBefore(receipt.expiresAt), receipt };
}

function byId(receipts: ApprovalReceipt[]): ApprovalReceipt[] {
  return [...receipts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function swapCase(value: string): string {
  return [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}
