import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { requiresConfirmation } from '../approvals/requires-confirmation.js';
import { Capability } from '../capabilities/capability.decorator.js';
import type { ActionContext } from '../context/action-context.js';
import { MissingActionContextError } from '../errors/missing-action-context.error.js';
import { atMostOnce } from '../execution-claims/at-most-once.js';
import { ExecutionTargetPolicy } from '../targets/execution-target-policy.js';
import { fromProposal } from '../targets/target-resolver.js';
import { createVerdictTestingModule, type VerdictTestingModule } from './verdict-testing-module.js';

class Note {
  constructor(
    readonly id: number,
    readonly owner: string,
    public archived = false,
  ) {}
}

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme' };
const bob: ActionContext = { actor: { id: 'bob' }, tenant: 'acme' };

/** The notes and their archive counter, shared by the capabilities and the tests. */
@Injectable()
class Notes {
  readonly byId = new Map([[1, new Note(1, 'alice')]]);
  archivals = 0;
}

@Injectable()
class NoteCapabilities {
  constructor(readonly notes: Notes) {}

  @Capability({
    name: 'notes.archive',
    description: 'Archive a note',
    action: 'archive',
    subject: 'Note',
    arguments: z.object({ id: z.number().int() }),
    resolveTarget: fromProposal(({ arguments: args }, self: NoteCapabilities) =>
      self.notes.byId.get((args as { id: number }).id)!,
    ),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Note>({
      name: 'note',
      identity: (note) => ({ id: note.id }),
    }),
    requiresConfirmation: requiresConfirmation({
      bind: (_envelope, note: Note) => ({ note: note.id }),
      reason: 'Archiving hides the note.',
    }),
    atMostOnce: atMostOnce({ name: 'archive-note', key: (_envelope, note: Note) => ({ note: note.id }) }),
  })
  archive(action: { target: Note }) {
    this.notes.archivals += 1;
    action.target.archived = true;
    return { archived: action.target.id };
  }
}

const abilityFactory = {
  createForContext(context: ActionContext) {
    const { can, build } = new AbilityBuilder(createMongoAbility);
    can('archive', 'Note', { owner: (context.actor as { id: string }).id });
    return build();
  },
};

const opened: VerdictTestingModule[] = [];
afterEach(async () => {
  for (const verdict of opened.splice(0)) await verdict.close();
});

async function open(options: Partial<Parameters<typeof createVerdictTestingModule>[0]> = {}) {
  const verdict = await createVerdictTestingModule({
    abilityFactory,
    providers: [Notes, NoteCapabilities],
    ...options,
  });
  opened.push(verdict);
  return verdict;
}

describe('createVerdictTestingModule', () => {
  it('wires every gate to an in-memory store: a confirmation, its approval and one claimed execution, as the requester', async () => {
    const verdict = await open();
    const proposal = { capability: 'notes.archive', arguments: { id: 1 }, toolCallId: 'call-1' };

    const proposed = await verdict.as(alice).execute(proposal);
    expect(proposed).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    const challenge = proposed.executed ? undefined : proposed.challenge!;
    expect(await verdict.stores.approvals.find(challenge!.receiptId)).toMatchObject({ status: 'pending' });

    expect(await verdict.approvals.approve(challenge!.receiptId, 'call-1', 'alice')).toMatchObject({
      outcome: 'approved',
    });
    const resumed = await verdict.as(alice).execute(proposal, { explicitApproval: true });

    expect(resumed).toMatchObject({ executed: true, output: { archived: 1 } });
    expect(verdict.moduleRef.get(Notes).archivals).toBe(1);
    expect(await verdict.stores.approvals.find(challenge!.receiptId)).toMatchObject({ status: 'consumed' });
    expect(await verdict.stores.executionClaims.unresolved()).toEqual([]);
    expect(verdict.evidence.decisions().map((record) => record.disposition)).toContain('permit');
  });

  it('decides as the given actor: another owner is denied, evaluate executes nothing, run binds the context', async () => {
    const verdict = await open();

    expect(await verdict.as(bob).execute({ capability: 'notes.archive', arguments: { id: 1 } })).toMatchObject({
      executed: false,
      decision: { disposition: 'deny' },
    });
    expect(await verdict.as(alice).evaluate({ capability: 'notes.archive', arguments: { id: 1 } })).toMatchObject({
      executed: false,
    });
    expect(verdict.moduleRef.get(Notes).archivals).toBe(0);
    expect(verdict.as(bob).run(() => verdict.contexts.current())).toEqual(bob);
    expect(verdict.evidence.decisions().length).toBeGreaterThan(0);
  });

  it('attack: a context without an actor rejects execute and evaluate with MissingActionContextError, running nothing', async () => {
    const verdict = await open();
    const noActor = { actor: '' } as unknown as ActionContext;
    const proposal = { capability: 'notes.archive', arguments: { id: 1 }, toolCallId: 'call-2' };

    await expect(verdict.as(noActor).execute(proposal)).rejects.toThrow(MissingActionContextError);
    await expect(verdict.as(noActor).evaluate(proposal)).rejects.toThrow(MissingActionContextError);
    expect(() => verdict.as(noActor).run(() => 'ran')).toThrow(MissingActionContextError);
    expect(verdict.moduleRef.get(Notes).archivals).toBe(0);
    // Control: the same proposal as its owner is decided (a confirmation is asked).
    await expect(verdict.as(alice).execute(proposal)).resolves.toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation' },
    });
  });

  it('gives every module a store set of its own, and lets configure override providers', async () => {
    const fixed = new Notes();
    const first = await open({ configure: (builder) => builder.overrideProvider(Notes).useValue(fixed) });
    const second = await open();

    expect(first.moduleRef.get(Notes)).toBe(fixed);
    expect(first.stores.approvals).not.toBe(second.stores.approvals);
    expect(first.evidence).not.toBe(second.evidence);
  });
});
