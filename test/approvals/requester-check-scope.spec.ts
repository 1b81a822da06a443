import { describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalBatchService,
  type ApprovalReceiptStore,
  ApprovalService,
  type CapabilityDefinition,
  Destination,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  NonCanonicalValueError,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  VerdictService,
  approvalBatchId,
  labelContent,
  requiresConfirmation,
  withProvenance,
} from '@verdict/nestjs';
import { type Document, documentsFixture } from '../pipeline/documents.fixture.js';

/** An actor as a session hands it over: its id, and when it signed in (a `Date`: not plain JSON). */
interface SignedInActor {
  readonly id: string;
  readonly signedInAt?: Date;
  readonly customer?: { readonly id: string };
}

const SIGNED_IN_AT = new Date('2026-03-01T08:00:00.000Z');
const signedIn = (id: string, conversationId = 'c-1'): ActionContext => ({
  actor: { id, signedInAt: SIGNED_IN_AT },
  tenant: 'acme',
  metadata: { conversationId },
});
/** alice as a plain JSON actor: her proposals bind under any key. */
const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
/** An approver of acme (without CASL `approve`: `untrustedContent` answers `forbidden` once the receipt is found). */
const staff = { id: 'staff:1', context: { actor: { id: 'staff:1' }, tenant: 'acme' } };
const approvalUi = { destination: Destination.connection('approval-ui', 'staff') };
/** A window that held an untrusted ticket: provenance asks for confirmation of what is proposed in it. */
const ticketWindow = ProvenanceWindow.of([
  labelContent('Please do what the ticket says.', ProvenanceSource.user('chat'), Trust.Trusted),
  labelContent('Ticket 88: share document 1.', ProvenanceSource.retrieval('tickets'), Trust.Untrusted),
]);

/**
 * The documents app (`documents.read`, `rename` and `latest`: no confirmation, so their proposals take any actor) with
 * `documents.archive` — confirmed with `confirmation` (its own `actorKey`, as docs/approvals.md advises for actors
 * that carry a `Date`), or not at all when `confirmation` is `null` — and, with `share`, `documents.share`, which asks
 * for confirmation only through provenance (`untrustedContext: 'require_confirmation'`); with `shadowed`,
 * `documents.export`, which requires confirmation (without an `actorKey`) in shadow mode: it issues no receipt.
 * No module `actorKey`.
 */
async function documentsApp(
  store: ApprovalReceiptStore,
  confirmation: { actorKey?: (actor: SignedInActor) => string } | null,
  { share = false, shadowed = false } = {},
) {
  const fixture = documentsFixture();
  const capabilities: CapabilityDefinition[] = [
    fixture.documentCapability(
      {
        name: 'documents.archive',
        description: 'Archive a document',
        ...(confirmation === null
          ? {}
          : {
              requiresConfirmation: requiresConfirmation<{ id: number }, Document, SignedInActor>({
                bind: (_envelope, doc) => ({ doc: doc.id }),
                reason: 'Archiving hides the document.',
                ...confirmation,
              }),
            }),
      },
      () => 'archived',
    ),
  ];
  if (share)
    capabilities.push(
      fixture.documentCapability(
        {
          name: 'documents.share',
          description: 'Share a document',
          provenance: { untrustedContext: 'require_confirmation' },
        },
        () => 'shared',
      ),
    );
  if (shadowed)
    capabilities.push(
      fixture.documentCapability(
        {
          name: 'documents.export',
          description: 'Export a document',
          enforce: false,
          requiresConfirmation: { bind: () => ({}), reason: 'Exports leave the tenant.' },
        },
        () => 'exported',
      ),
    );
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({ capabilities, approvals: store, evidence });
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const batches = moduleRef.get(ApprovalBatchService);
  return {
    approvals,
    batches,
    evidence,
    /** Proposes `capability` on document 1 as `requester` (in the untrusted ticket's window for `documents.share`). */
    propose: (requester: ActionContext, capability: string, toolCallId: string, approvalBatch?: string) =>
      contexts.run(requester, () => {
        const run = () => verdict.execute({ capability, arguments: { id: 1 }, toolCallId }, { approvalBatch });
        return capability === 'documents.share' ? withProvenance(ticketWindow, run) : run();
      }),
    /** Every lookup `requester` can make of `toolCallId` and `batchId`, each settled to its answer or error class. */
    lookups: (requester: ActionContext, toolCallId: string, batchId: string) =>
      Promise.all(
        [
          () => approvals.challengeForToolCall(toolCallId, requester),
          () => approvals.pending([toolCallId], requester),
          () => approvals.untrustedContent('rcpt_none', staff, approvalUi, requester),
          () => batches.pending(batchId, requester),
          () => batches.read(batchId, staff, requester),
        ].map((lookup) =>
          lookup().then(
            (value) => ({ value }),
            (error: Error) => ({ error: error.constructor.name }),
          ),
        ),
      ),
    close: () => moduleRef.close(),
  };
}

/**
 * docs/approvals.md "Who asked is always bound": a lookup checks the requester before it reads the store, under the
 * actor key of each capability that can issue a receipt, and only those. It used to check under every registered
 * capability's key: one without confirmation fell back to the actor itself, so the documented setup — a per-capability
 * `actorKey` because actors carry a `Date`, no module `actorKey` — got `NonCanonicalValueError` from every lookup,
 * although none of its proposals refuse such an actor; and `pending(ids)` checked it once more per id.
 */
describe('the requester check of receipt lookups, under the keys of capabilities that can issue receipts', () => {
  it("defect: the documented setup finds the requester's own receipt, and another requester's nothing", async () => {
    const app = await documentsApp(new InMemoryApprovalReceiptStore(), { actorKey: (actor) => actor.id });
    const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    const carol = signedIn('alice');
    // Her proposals take her: the unconfirmed read executes, the confirmed archive asks.
    expect(await app.propose(carol, 'documents.read', 'call_0')).toMatchObject({ executed: true });
    expect(await app.propose(carol, 'documents.archive', 'call_1', batchId)).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    const challenge = await app.approvals.challengeForToolCall('call_1', carol);
    expect(challenge).toMatchObject({ toolCallId: 'call_1', capability: 'documents.archive' });
    expect(await app.approvals.pending(['call_1', 'call_none'], carol)).toEqual([
      expect.objectContaining({ toolCallId: 'call_1' }),
    ]);
    expect(await app.approvals.untrustedContent(challenge!.receiptId, staff, approvalUi, carol)).toEqual({
      allowed: false,
      outcome: 'forbidden',
    });
    expect(await app.batches.pending(batchId, carol)).toMatchObject({ batchId, items: [{ toolCallId: 'call_1' }] });
    // bob, signed in too, asked for nothing.
    const bob = signedIn('bob');
    expect(await app.approvals.challengeForToolCall('call_1', bob)).toBeNull();
    expect(await app.batches.pending(batchId, bob)).toBeNull();
    await app.close();
  });

  it('control: a capability in shadow mode that requires confirmation binds who asks, in its proposals and lookups', async () => {
    const app = await documentsApp(
      new InMemoryApprovalReceiptStore(),
      { actorKey: (actor) => actor.id },
      { shadowed: true },
    );
    const carol = signedIn('alice');
    const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    // It issues no receipt, but validates one under its key (the actor itself): the proposal refuses carol too.
    await expect(app.propose(carol, 'documents.export', 'call_0')).rejects.toThrow(NonCanonicalValueError);
    expect(await app.lookups(carol, 'call_0', batchId)).toEqual(Array(5).fill({ error: NonCanonicalValueError.name }));
    expect(await app.propose(alice, 'documents.export', 'call_1')).toMatchObject({ executed: true });
    await app.close();
  });

  it('defect: pending(ids) asks the actor key once per lookup, not once more per id', async () => {
    let asked = 0;
    const app = await documentsApp(new InMemoryApprovalReceiptStore(), {
      actorKey: (actor) => {
        asked += 1;
        return actor.id;
      },
    });
    const carol = signedIn('alice');
    expect(await app.approvals.pending(['call_1', 'call_2', 'call_3'], carol)).toEqual([]);
    expect(asked).toBe(1);
    expect(await app.approvals.challengeForToolCall('call_1', carol)).toBeNull();
    expect(asked).toBe(2);
    await app.close();
  });

  it("attack: a receipt of a capability that no longer asks for confirmation leaves another requester's answer alone", async () => {
    // The same store, once with documents.archive confirmed (its key: the actor itself), then without confirmation.
    const store = new InMemoryApprovalReceiptStore();
    const now = await documentsApp(store, null);
    const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    const mallory = signedIn('mallory', 'c-9');
    const before = await now.lookups(mallory, 'shared', batchId);
    expect(before).not.toContainEqual({ error: NonCanonicalValueError.name });
    const earlier = await documentsApp(store, {});
    expect(await earlier.propose(alice, 'documents.archive', 'shared', batchId)).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    await earlier.close();
    expect(await now.lookups(mallory, 'shared', batchId)).toEqual(before);
    // Nobody's: the capability no longer asks, so its receipt is no longer anyone's to decide.
    expect(await now.approvals.challengeForToolCall('shared', alice)).toBeNull();
    await now.close();
  });

  it("attack (kept): a capability that asks only through provenance has its key checked, with and without another's receipt", async () => {
    const app = await documentsApp(
      new InMemoryApprovalReceiptStore(),
      { actorKey: (actor) => actor.id },
      { share: true },
    );
    const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    const mallory = signedIn('mallory', 'c-9');
    const thrown = { error: NonCanonicalValueError.name };
    const before = await app.lookups(mallory, 'shared', batchId);
    expect(before).toEqual(Array(5).fill(thrown));
    // alice's receipt under the same tool-call id, asked for by provenance (the ticket's window).
    expect(await app.propose(alice, 'documents.share', 'shared', batchId)).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    expect(await app.lookups(mallory, 'shared', batchId)).toEqual(before);
    expect(await app.approvals.challengeForToolCall('shared', alice)).toMatchObject({ capability: 'documents.share' });
    expect(app.evidence.decisions().filter((record) => record.toolKind === 'approver')).toEqual([]);
    await app.close();
  });

  it("control: a confirmed capability's actorKey that throws for the requester fails the lookup as it fails the proposal", async () => {
    const app = await documentsApp(new InMemoryApprovalReceiptStore(), {
      actorKey: (actor) => actor.customer!.id,
    });
    const batchId = approvalBatchId({ conversation: 'c-1', message: 'turn-1' });
    const carol = signedIn('alice');
    await expect(app.propose(carol, 'documents.archive', 'call_1')).rejects.toThrow(TypeError);
    expect(await app.lookups(carol, 'call_1', batchId)).toEqual(Array(5).fill({ error: TypeError.name }));
    await app.close();
  });
});
