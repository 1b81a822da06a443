import { randomBytes } from 'node:crypto';
import type { ReviewItemDraft, ReviewItemStore } from '../review/review-item-store.interface.js';
import { ReviewItemStatus } from '../review/review-item-status.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';
import { APPROVER_PROVENANCE as PROVENANCE } from './approver-provenance.sample.js';

/** A review item store under test. */
export interface ReviewItemStoreHarness {
  readonly store: ReviewItemStore;
  close(): Promise<void>;
}

const T0 = new Date('2024-02-29T12:00:00.123Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const EXPIRES = 900;
const { Pending, Approved, Rejected, Executed, Refused } = ReviewItemStatus;

/**
 * The behaviour every {@link ReviewItemStore} adapter must share (docs/review-lane.md): park-or-keep per
 * (capability, request key, binding) with the kept row returned unchanged in any state, JSON values
 * (arguments, requester key, subject, conversation id) returned as parked, the reviewer queue by tenant
 * (`null` included) and capability with its exact expiry boundary, one decision per item (pending and
 * unexpired only; refusals classified not_found → expired → invalid_state), settlement of approved items
 * only, exact id comparison and millisecond UTC instants. Each test uses keys of its own; concurrency
 * across OS processes is proven separately.
 *
 * @example
 * describeReviewItemStoreContract('memory', async () => ({ store: new InMemoryReviewItemStore(), close: async () => {} }));
 */
export function describeReviewItemStoreContract(
  engineLabel: string,
  setup: () => Promise<ReviewItemStoreHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it, beforeAll, afterAll } = suiteHooks(options);
  describe(`ReviewItemStore contract [${engineLabel}]`, () => {
    let harness: ReviewItemStoreHarness;
    beforeAll(async () => {
      harness = await setup();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const store = () => harness.store;

    describe('park', () => {
      it('inserts a pending item and returns every field as parked', async () => {
        const request = draft({ conversationId: 7, subject: { tenantId: 'acme', amount: 900 } });
        const item = await store().park(request);
        const { now: _now, ...fields } = request;
        expect(item).toEqual({
          ...fields,
          status: Pending,
          decidedBy: null,
          decidedAt: null,
          settledAt: null,
          createdAt: T0,
          updatedAt: T0,
        });
        expect(await store().find(item.id)).toEqual(item);
      });

      it('keeps the provenance summary it was parked with, through a decision', async () => {
        const item = await store().park(draft({ provenance: PROVENANCE }));
        expect(item.provenance).toEqual(PROVENANCE);
        const decided = await store().decide({ id: item.id, verdict: 'approve', by: 'staff:7', now: at(5) });
        expect(decided.item?.provenance).toEqual(PROVENANCE);
        expect((await store().find(item.id))?.provenance).toEqual(PROVENANCE);
      });

      it('keeps a requester parked without an actor fingerprint as null', async () => {
        const item = await store().park(draft({ requesterActorFingerprint: null }));
        expect((await store().find(item.id))?.requesterActorFingerprint).toBeNull();
      });

      it('parks an enqueued item as approved when asked to', async () => {
        const item = await store().park(draft({ reviewed: false }), true);
        expect({ status: item.status, reviewed: item.reviewed }).toEqual({ status: Approved, reviewed: false });
      });

      it('keeps the existing item of the same key, whatever its state, and writes nothing new', async () => {
        const first = await store().park(draft());
        await store().decide({ id: first.id, verdict: 'reject', by: 'staff:1', now: at(1) });
        const again = await store().park({ ...draft(), ...keyOf(first), id: newId(), now: at(2) });
        expect(again).toEqual({ ...first, status: Rejected, decidedBy: 'staff:1', decidedAt: at(1), updatedAt: at(1) });
      });

      it('parks a new item for the same request when the binding differs', async () => {
        const first = await store().park(draft());
        const other = await store().park({ ...draft(), requestKey: first.requestKey, bindingFingerprint: fp('other') });
        expect(other.id).not.toBe(first.id);
      });
    });

    describe('pending', () => {
      it('lists the pending, unexpired items of one tenant (and capability), oldest first', async () => {
        const tenant = `t-${newId()}`;
        const older = await store().park(draft({ tenant, capability: 'orders.refund' }));
        const newer = await store().park(draft({ tenant, capability: 'accounts.email', now: at(1) }));
        const decided = await store().park(draft({ tenant }));
        await store().decide({ id: decided.id, verdict: 'approve', by: 'staff:1', now: at(2) });
        await store().park(draft({ tenant: `${tenant}-other` }));
        const ids = async (query: { capability?: string; now: Date }) =>
          (await store().pending({ tenant, ...query })).map((item) => item.id);
        expect(await ids({ now: at(3) })).toEqual([older.id, newer.id]);
        expect(await ids({ capability: 'orders.refund', now: at(3) })).toEqual([older.id]);
        expect(await ids({ now: at(EXPIRES) })).toEqual([]);
        expect(await ids({ now: new Date(at(EXPIRES).getTime() - 1) })).toEqual([older.id, newer.id]);
      });

      it('lists items of the null tenant only for the null tenant', async () => {
        const item = await store().park(draft({ tenant: null, capability: `c-${newId()}` }));
        expect(
          (await store().pending({ tenant: null, capability: item.capability, now: at(1) })).map((i) => i.id),
        ).toEqual([item.id]);
        expect(await store().pending({ tenant: 'acme', capability: item.capability, now: at(1) })).toEqual([]);
      });
    });

    describe('decide', () => {
      it('approves a pending item once; a second decision is invalid_state and changes nothing', async () => {
        const item = await store().park(draft());
        const approved = await store().decide({ id: item.id, verdict: 'approve', by: 'staff:7', now: at(5) });
        const expected = { ...item, status: Approved, decidedBy: 'staff:7', decidedAt: at(5), updatedAt: at(5) };
        expect(approved).toEqual({ outcome: 'approved', item: expected });
        expect(await store().decide({ id: item.id, verdict: 'reject', by: 'staff:8', now: at(6) })).toEqual({
          outcome: 'invalid_state',
          item: expected,
        });
        expect(await store().find(item.id)).toEqual(expected);
      });

      it('rejects a pending item', async () => {
        const item = await store().park(draft());
        const rejected = await store().decide({ id: item.id, verdict: 'reject', by: 'staff:7', now: at(5) });
        expect({ outcome: rejected.outcome, status: rejected.item?.status }).toEqual({
          outcome: 'rejected',
          status: Rejected,
        });
      });

      it('refuses an expired item at the exact boundary, and an unknown or differently cased id', async () => {
        const item = await store().park(draft());
        expect(await store().decide({ id: item.id, verdict: 'approve', by: 'staff:7', now: at(EXPIRES) })).toEqual({
          outcome: 'expired',
          item,
        });
        expect(await store().decide({ id: item.id.toUpperCase(), verdict: 'approve', by: 's', now: at(1) })).toEqual({
          outcome: 'not_found',
          item: null,
        });
        expect(await store().find(`${item.id} `)).toBeNull();
        const justBefore = new Date(at(EXPIRES).getTime() - 1);
        expect(
          (await store().decide({ id: item.id, verdict: 'approve', by: 'staff:7', now: justBefore })).outcome,
        ).toBe('approved');
      });
    });

    describe('settle', () => {
      it('settles an approved item once, as executed or refused', async () => {
        const item = await store().park(draft(), true);
        expect(await store().settle({ id: item.id, outcome: 'executed', now: at(9) })).toBe(true);
        expect(await store().settle({ id: item.id, outcome: 'refused', now: at(10) })).toBe(false);
        expect(await store().find(item.id)).toEqual({ ...item, status: Executed, settledAt: at(9), updatedAt: at(9) });
        const other = await store().park(draft(), true);
        expect(await store().settle({ id: other.id, outcome: 'refused', now: at(9) })).toBe(true);
        expect((await store().find(other.id))?.status).toBe(Refused);
      });

      it('never settles a pending or rejected item', async () => {
        const item = await store().park(draft());
        expect(await store().settle({ id: item.id, outcome: 'executed', now: at(1) })).toBe(false);
        await store().decide({ id: item.id, verdict: 'reject', by: 'staff:1', now: at(2) });
        expect(await store().settle({ id: item.id, outcome: 'executed', now: at(3) })).toBe(false);
        expect((await store().find(item.id))?.status).toBe(Rejected);
      });
    });
  });
}

function newId(): string {
  return `rvw_${randomBytes(32).toString('base64url')}`;
}

function fp(value: string): string {
  return fingerprint({ value });
}

function keyOf(item: { capability: string; requestKey: string; bindingFingerprint: string }) {
  return { capability: item.capability, requestKey: item.requestKey, bindingFingerprint: item.bindingFingerprint };
}

function draft(overrides: Partial<ReviewItemDraft> = {}): ReviewItemDraft {
  return {
    id: newId(),
    capability: 'orders.refund',
    arguments: { orderId: 1002, amount: 900, note: 'ünïcode ✓' },
    requestKey: `call_${randomBytes(8).toString('hex')}`,
    bindingFingerprint: fp(randomBytes(8).toString('hex')),
    principalFingerprint: fp('customer:72'),
    requesterKey: { customerId: 72 },
    requesterActorFingerprint: fp('user:customer:72'),
    tenant: 'acme',
    conversationId: 'conv-1',
    reviewed: true,
    reason: 'Refunds above 500 EUR are reviewed.',
    description: 'Refund 900 EUR on order 1002',
    subject: null,
    expiresAt: at(EXPIRES),
    provenance: null,
    now: T0,
    ...overrides,
    ...(overrides.now !== undefined && overrides.expiresAt === undefined ? { expiresAt: at(EXPIRES) } : {}),
  };
}
