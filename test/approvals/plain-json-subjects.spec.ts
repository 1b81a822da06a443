import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalBatchService,
  ApprovalService,
  ExecutionTargetPolicy,
  type JsonObject,
  NonCanonicalValueError,
  ReviewService,
  VerdictService,
  approvalBatchId,
  defineCapability,
  fromProposal,
  requiresConfirmation,
  requiresReview,
} from '@verdict/nestjs';
import { confirmOrReviewApp, type ParkingStores as Stores, parkingStoreBackends } from './confirm-or-review.fixture.js';

/** The receipt and review item stores to ask on: memory, and TypeORM on each engine of the database matrix. */
const backends = parkingStoreBackends();

interface Doc {
  id: number;
  tenant: string;
  placed: Date;
}
type Subject = (envelope: unknown, doc: Doc) => JsonObject;

const unique = (prefix: string) => prefix + randomBytes(6).toString('hex');
const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
/** Support staff, who may approve (or review) documents placed since February: a rule on the subject's `placed`. */
const support = { id: 'staff:sam', context: { actor: { id: 'sam', role: 'support' }, tenant: 'acme' } };
const SINCE_FEBRUARY = { placed: { $gte: '2026-02-01T00:00:00.000Z' } };

/**
 * `documents.archive`, confirmed or reviewed, whose `subject` (confirmation) or `reviewer.subject` (review) is the
 * given callback, over documents 1 (placed in January) and 2 (placed on 1 March), on the given stores.
 */
async function archive(stores: Stores, mode: 'confirm' | 'review', subject: Subject) {
  const docs = new Map<number, Doc>([
    [1, { id: 1, tenant: 'acme', placed: new Date('2026-01-01T00:00:00.000Z') }],
    [2, { id: 2, tenant: 'acme', placed: new Date('2026-03-01T00:00:00.000Z') }],
  ]);
  const executed: unknown[] = [];
  const base = {
    name: 'documents.archive',
    description: 'Archive a document',
    action: 'archive',
    subject: 'Document',
    mutates: true,
    arguments: z.object({ id: z.number().int() }),
    resolveTarget: fromProposal<{ id: number }, Doc>(({ arguments: a }) => docs.get(a.id) as Doc),
    executionTarget: ExecutionTargetPolicy.refresh<Doc>({
      name: 'doc',
      identity: (doc) => ({ id: doc.id }),
      refresh: (doc) => docs.get(doc.id) as Doc,
    }),
  };
  const capability = defineCapability(
    mode === 'confirm'
      ? {
          ...base,
          requiresConfirmation: requiresConfirmation<{ id: number }, Doc>({
            bind: (_envelope, doc) => ({ doc: doc.id }),
            reason: 'Archiving is confirmed.',
            subject,
          }),
        }
      : {
          ...base,
          requiresReview: requiresReview<{ id: number }, Doc>({
            bind: (_envelope, doc) => ({ doc: doc.id }),
            reason: 'Archiving is reviewed.',
            reviewer: { subject },
          }),
        },
    (action) => void executed.push(action.arguments),
  );
  const { moduleRef, evidence } = await confirmOrReviewApp(stores, mode, {
    capability,
    abilities: (can, context) => {
      can('archive', 'Document');
      if ((context.actor as { role?: string }).role === 'support') {
        can('approve', 'Approval', SINCE_FEBRUARY);
        can('review', 'Document', SINCE_FEBRUARY);
      }
    },
    rehydrate: () => alice,
    work: false,
  });
  const tenant = unique('acme-');
  const requester: ActionContext = { ...alice, tenant };
  const approver = { ...support, context: { ...support.context, tenant } };
  const batchId = approvalBatchId({ conversation: 'c-1', message: unique('turn-') });
  /** Proposes archiving `doc` in a tenant of this app's own; answers the disposition, or what was thrown. */
  const propose = (doc: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(requester, () =>
        moduleRef
          .get(VerdictService)
          .execute(
            { capability: 'documents.archive', arguments: { id: doc }, toolCallId: `call_${doc}` },
            mode === 'confirm' ? { approvalBatch: batchId } : {},
          ),
      )
      .then(
        (result) => result.decision.disposition as string,
        (error: unknown) => error,
      );
  /** What the approver or reviewer is shown of each call asked for: its subject facts, and whether they may decide. */
  const asked = async () => {
    if (mode === 'confirm') {
      const approvals = moduleRef.get(ApprovalService);
      const challenges = await Promise.all(
        ['call_1', 'call_2'].map((id) => approvals.challengeForToolCall(id, requester)),
      );
      const read = await moduleRef.get(ApprovalBatchService).read(batchId, approver, requester);
      return { subjects: challenges.flatMap((c) => (c === null ? [] : [c.subject])), allowed: read.allowed };
    }
    const reviews = moduleRef.get(ReviewService);
    const items = await reviews.pending({ tenant });
    const checks = await Promise.all(items.map((item) => reviews.check(item.itemId, approver)));
    return { subjects: items.map((item) => item.subject), allowed: checks.map((check) => check.allowed) };
  };
  return { propose, asked, executed, evidence, close: () => moduleRef.close() };
}

/**
 * ADR 0201: a capability's `subject` (and a review lane's `reviewer.subject`) is the facts an approver's CASL ability
 * is checked against. It was stored unchecked: memory kept a `Date` as a `Date` and TypeORM as JSON text, so an
 * approver's rule on it decided `allowed` on memory and `forbidden` on SQL; a BigInt failed on SQL alone with a raw
 * `TypeError` after the run's evidence was written; an `undefined` value was kept by memory and dropped by SQL. Facts
 * that are not a plain JSON object are now an application fault, alike on every store, before anything is issued.
 */
describe.each(backends)('subject facts that are not plain JSON [%s]', (_engine, open) => {
  let stores: Stores;
  beforeAll(async () => {
    stores = await open();
  });
  afterAll(async () => stores?.close());

  for (const mode of ['confirm', 'review'] as const) {
    const path = mode === 'confirm' ? '$.subject' : '$.reviewer.subject';
    const refused: Array<[string, Subject, string]> = [
      ['a Date', (_e, doc) => ({ tenant: doc.tenant, placed: doc.placed }) as never, `${path}.placed`],
      ['a BigInt', (_e, doc) => ({ tenant: doc.tenant, serial: BigInt(doc.id) }) as never, `${path}.serial`],
      ['an undefined value', (_e, doc) => ({ tenant: doc.tenant, customer: undefined }) as never, `${path}.customer`],
      ['an array', (_e, doc) => [doc.tenant] as never, path],
      ['a string', (_e, doc) => doc.tenant as never, path],
      // Unseen by the check and by a JSON copy, read by CASL in memory: the March date allowed there, not on SQL.
      [
        'a non-enumerable value',
        (_e, doc) => Object.defineProperty({ tenant: doc.tenant }, 'placed', { value: doc.placed.toISOString() }),
        `${path}.placed`,
      ],
    ];

    for (const [holding, subject, at] of refused)
      it(`attack (${mode}): a subject of ${holding} fails the call naming ${at}, nothing asked`, async () => {
        const app = await archive(stores, mode, subject);
        const outcome = await app.propose(2);
        const asked = await app.asked();
        const recorded = app.evidence.decisions().map((record) => record.disposition);
        await app.close();

        expect(outcome).toBeInstanceOf(NonCanonicalValueError);
        expect((outcome as NonCanonicalValueError).path).toBe(at);
        expect(asked.subjects).toEqual([]);
        expect(recorded).not.toContain(mode === 'confirm' ? 'require_confirmation' : 'require_review');
        expect(app.executed).toEqual([]);
      });

    const parked = mode === 'confirm' ? 'require_confirmation' : 'require_review';
    const inMarch = { placed: '2026-03-01T00:00:00.000Z' };
    const inJanuary = { placed: '2026-01-01T00:00:00.000Z' };
    const asFacts = (facts: JsonObject) => (mode === 'review' ? { ...facts, capability: 'documents.archive' } : facts);

    it(`attack (${mode}): a getter answering March to the check and January afterwards is kept as March`, async () => {
      let reads = 0;
      const app = await archive(stores, mode, () => ({
        get placed() {
          return reads++ === 0 ? inMarch.placed : inJanuary.placed;
        },
      }));
      const outcome = await app.propose(2);
      const asked = await app.asked();
      await app.close();

      // What the check saw is what the approver is shown and their rule decides on: read once.
      expect({ outcome, asked, reads }).toEqual({
        outcome: parked,
        asked: { subjects: [asFacts(inMarch)], allowed: mode === 'confirm' ? true : [true] },
        reads: 1,
      });
    });

    it(`attack (${mode}): facts the application changes after the call are kept as they were answered`, async () => {
      const shared = { doc: { ...inMarch } };
      const app = await archive(stores, mode, () => shared);
      const outcome = await app.propose(2);
      shared.doc.placed = inJanuary.placed;
      const asked = await app.asked();
      await app.close();

      expect({ outcome, subjects: asked.subjects }).toEqual({ outcome: parked, subjects: [asFacts({ doc: inMarch })] });
    });

    it(`control (${mode}): a getter answering plain JSON is read once and decides alike`, async () => {
      const app = await archive(stores, mode, (_e, doc) => ({
        get placed() {
          return doc.placed.toISOString();
        },
      }));
      const outcome = await app.propose(2);
      const asked = await app.asked();
      await app.close();

      expect({ outcome, asked }).toEqual({
        outcome: parked,
        asked: { subjects: [asFacts(inMarch)], allowed: mode === 'confirm' ? true : [true] },
      });
    });

    it(`control (${mode}): a subject of plain JSON values is asked, and a rule on its ISO date decides alike`, async () => {
      const app = await archive(stores, mode, (_e, doc) => ({ tenant: doc.tenant, placed: doc.placed.toISOString() }));
      const january = await app.propose(1);
      const march = await app.propose(2);
      const asked = await app.asked();
      await app.close();

      expect([january, march]).toEqual([parked, parked]);
      const facts = (placed: string) => ({
        tenant: 'acme',
        placed,
        ...(mode === 'review' ? { capability: 'documents.archive' } : {}),
      });
      expect(asked.subjects).toEqual([facts('2026-01-01T00:00:00.000Z'), facts('2026-03-01T00:00:00.000Z')]);
      // Support may decide documents placed since February: not the January one (a batch is read whole).
      expect(asked.allowed).toEqual(mode === 'confirm' ? false : [false, true]);
    });
  }

  it('control (confirm): a batch of only the March document is the approver’s to read', async () => {
    const app = await archive(stores, 'confirm', (_e, doc) => ({ placed: doc.placed.toISOString() }));
    const march = await app.propose(2);
    const asked = await app.asked();
    await app.close();

    expect({ march, asked }).toEqual({
      march: 'require_confirmation',
      asked: { subjects: [{ placed: '2026-03-01T00:00:00.000Z' }], allowed: true },
    });
  });
});
