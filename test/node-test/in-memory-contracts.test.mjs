// The public testing kit under node:test, with no Jest anywhere: `node --test test/node-test/` after
// `npx tsc -b packages/verdict`. test/node-test/node-test.spec.ts runs this file in `npm test`.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import * as nodeTest from 'node:test';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryReviewItemStore,
  InMemoryTrajectoryStore,
  InProcessDeferredQueue,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import {
  createVerdictTestingModule,
  describeApprovalReceiptStoreContract,
  describeDeferredQueueContract,
  describeEvidenceRecorderContract,
  describeExecutionClaimStoreContract,
  describeRateLimitStoreContract,
  describeReviewItemStoreContract,
  describeTrajectoryStoreContract,
} from '@verdict/nestjs/testing';

const close = async () => {};

// The runner is detected: no Jest globals here, so the suites register with node:test.
describeApprovalReceiptStoreContract('memory', async () => ({ store: new InMemoryApprovalReceiptStore(), close }));
describeExecutionClaimStoreContract('memory', async () => ({ store: new InMemoryExecutionClaimStore(), close }));
describeTrajectoryStoreContract('memory', async () => ({ store: new InMemoryTrajectoryStore(), close }));
describeReviewItemStoreContract('memory', async () => ({ store: new InMemoryReviewItemStore(), close }));
describeDeferredQueueContract('in-process', async () => ({ queue: new InProcessDeferredQueue(), close }));
describeEvidenceRecorderContract('memory', async () => {
  const recorder = new InMemoryEvidenceRecorder();
  return {
    recorder,
    read: async (id) => recorder.decisions().filter((record) => record.correlationId === id),
    readReleases: async (id) => recorder.releases().filter((record) => record.correlationId === id),
    close,
  };
});
// And passed explicitly.
describeRateLimitStoreContract('memory', async () => ({ store: new InMemoryRateLimitStore(), close }), {
  runner: nodeTest,
});

class Note {
  constructor(id, owner) {
    this.id = id;
    this.owner = owner;
  }
}

nodeTest.describe('createVerdictTestingModule under node:test', () => {
  const notes = new Map([[1, new Note(1, 'alice')]]);
  const archive = defineCapability(
    {
      name: 'notes.archive',
      description: 'Archive a note',
      action: 'archive',
      subject: 'Note',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal(({ arguments: args }) => notes.get(args.id)),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'note',
        identity: (note) => ({ id: note.id }),
      }),
    },
    (action) => ({ archived: action.target.id }),
  );
  const abilityFactory = {
    createForContext: (context) => {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('archive', 'Note', { owner: context.actor.id });
      return build();
    },
  };

  nodeTest.it("permits the owner's proposal, denies another actor's, and records both", async () => {
    const verdict = await createVerdictTestingModule({ abilityFactory, capabilities: [archive] });
    try {
      const proposal = { capability: 'notes.archive', arguments: { id: 1 } };
      const permitted = await verdict.as({ actor: { id: 'alice' }, tenant: 'acme' }).execute(proposal);
      const denied = await verdict.as({ actor: { id: 'bob' }, tenant: 'acme' }).execute(proposal);

      assert.deepEqual([permitted.executed, permitted.output, denied.executed], [true, { archived: 1 }, false]);
      assert.deepEqual(
        verdict.evidence
          .decisions()
          .filter((record) => record.stage === 'proposal')
          .map((record) => record.disposition),
        ['permit', 'deny'],
      );
    } finally {
      await verdict.close();
    }
  });

  nodeTest.it('scripts a chat model', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'notes_archive', args: { id: 1 }, id: 'call-1' }] },
      { text: 'Archived.' },
    ]);

    assert.deepEqual(
      (await model.invoke('Archive note 1')).tool_calls?.map((call) => call.id),
      ['call-1'],
    );
    assert.equal((await model.invoke('And now?')).content, 'Archived.');
    model.assertScriptConsumed();
  });
});
