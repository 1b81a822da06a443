import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  ReviewService,
  VerdictConfigurationError,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresConfirmation,
  requiresReview,
} from '@verdict/nestjs';
import { confirmOrReviewApp, type ParkingStores as Stores, parkingStoreBackends } from './confirm-or-review.fixture.js';

/** The receipt and review item stores to park on: memory, and TypeORM on each engine of the database matrix. */
const backends = parkingStoreBackends();

type Note = { note: string };
const unique = (prefix: string) => prefix + randomBytes(6).toString('hex');
const contextIn = (tenant: string): ActionContext => ({
  actor: { id: 'alice' },
  tenant,
  metadata: { conversationId: 'conversation-1' },
});

/**
 * `notes.send`, confirmed or reviewed, whose `describe` interpolates what the model wrote — docs/approvals.md's
 * `Send note: ${a.note}` — on the given stores; `propose` answers how the call ended.
 */
async function notes(stores: Stores, mode: 'confirm' | 'review') {
  const base = {
    name: 'notes.send',
    description: 'Send a note',
    action: 'send',
    subject: 'Note',
    mutates: true,
    arguments: z.object({ note: z.string() }),
    resolveTarget: fromProposal<Note, { id: number }>(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.refresh<{ id: number }>({
      name: 'note',
      identity: (target) => ({ id: target.id }),
      refresh: (target) => target,
    }),
  };
  const describeNote = ({ arguments: a }: { arguments: Note }) => `Send note: ${a.note}`;
  const capability = defineCapability(
    mode === 'confirm'
      ? {
          ...base,
          requiresConfirmation: requiresConfirmation<Note, { id: number }>({
            bind: () => ({ note: 1 }),
            reason: 'Notes are confirmed.',
            describe: describeNote,
          }),
        }
      : {
          ...base,
          requiresReview: requiresReview<Note, { id: number }>({
            bind: () => ({ note: 1 }),
            reason: 'Notes are reviewed.',
            describe: describeNote,
          }),
        },
    () => 'sent',
  );
  const { moduleRef, evidence } = await confirmOrReviewApp(stores, mode, {
    capability,
    abilities: (can) => can('manage', 'all'),
    rehydrate: () => contextIn('acme'),
  });
  const propose = (note: string, context: ActionContext, toolCallId = unique('call_')) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () =>
        moduleRef.get(VerdictService).execute({ capability: 'notes.send', arguments: { note }, toolCallId }),
      )
      .then(
        async (result) => ({
          disposition: result.decision.disposition as string,
          description:
            mode === 'confirm'
              ? (await moduleRef.get(ApprovalService).challengeForToolCall(toolCallId, context))?.description
              : (await moduleRef.get(ReviewService).pending({ tenant: context.tenant as string }))[0]?.description,
        }),
        (error: unknown) => error,
      );
  return { propose, evidence, close: () => moduleRef.close() };
}

/**
 * ADR 0194 (a lone surrogate in the arguments is a `deny` at `proposal`, ADR 0186; `storableReason`'s spec covers it):
 * a capability's `describe()` can interpolate what the model wrote. Holding U+0000 it failed the receipt's
 * or review item's write on PostgreSQL alone with a raw `QueryFailedError`, after `proposal permit` was recorded (and
 * past 64 KiB on MariaDB): it is stored as a reason is, U+0000 and lone surrogates as U+FFFD, at most 4,096 characters.
 */
describe.each(backends)('a description holding what the model wrote [%s]', (_engine, open) => {
  let stores: Stores;
  beforeAll(async () => {
    stores = await open();
  });
  afterAll(async () => stores?.close());

  for (const mode of ['confirm', 'review'] as const) {
    const parked = mode === 'confirm' ? 'require_confirmation' : 'require_review';

    it(`attack (${mode}): a note holding U+0000 parks the call, described with U+FFFD`, async () => {
      const app = await notes(stores, mode);
      const nul = await app.propose('pay\u0000me', contextIn(unique('nul-')));
      await app.close();

      expect(nul).toEqual({ disposition: parked, description: 'Send note: pay\ufffdme' });
    });

    // Confirmation only: a review item also keeps the arguments, which hold the note whole.
    if (mode === 'confirm')
      it(`attack (${mode}): a note of 70,000 characters parks the call, described whole to its end`, async () => {
        const app = await notes(stores, mode);
        const note = `${'😀'.repeat(35_000)} end`;
        const outcome = await app.propose(note, contextIn(unique('long-')));
        await app.close();

        // Never cut: a long note must not push the end of the description out of the approver's sight.
        expect(outcome).toEqual({ disposition: parked, description: `Send note: ${note}` });
      });

    it(`control (${mode}): a note with emoji is described whole`, async () => {
      const app = await notes(stores, mode);
      const outcome = await app.propose('pay 😀 now', contextIn(unique('ok-')));
      await app.close();

      expect(outcome).toEqual({ disposition: parked, description: 'Send note: pay 😀 now' });
    });
  }

  it('attack (review): a tenant holding U+0000 or a lone surrogate is refused before anything is parked', async () => {
    const app = await notes(stores, 'review');
    const nul = await app.propose('hello', contextIn('acme\u0000'));
    const lone = await app.propose('hello', contextIn('acme\ud800'));
    const recorded = app.evidence.decisions().map((record) => record.disposition);
    await app.close();

    for (const outcome of [nul, lone]) {
      expect(outcome).toBeInstanceOf(VerdictConfigurationError);
      expect((outcome as Error).message).toMatch(/tenant holding U\+0000 or a lone surrogate/);
    }
    expect(recorded).not.toContain('require_review');
  });

  it('control (review): a tenant with an astral character is parked and listed', async () => {
    const app = await notes(stores, 'review');
    const outcome = await app.propose('hello', contextIn(unique('acme-😀-')));
    await app.close();

    expect(outcome).toEqual({ disposition: 'require_review', description: 'Send note: hello' });
  });
});
