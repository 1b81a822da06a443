import { describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import {
  ActionContextStore,
  type ActorKey,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromContext,
  requiresReview,
} from '@verdict/nestjs';
import { z } from 'zod';

/**
 * docs/options.md: two applications in one process each have their own Verdict. A review lane without an `actorKey`
 * of its own takes the module's; that resolved lane was cached by the lane object alone, so a second application
 * handed the same lane object (a shared configuration constant, a test helper) parked its items under the first
 * application's key (ADR 0206).
 */

interface Person {
  readonly id: string;
  readonly email: string;
}

const exportRun = defineCapability(
  {
    name: 'exports.run',
    description: 'Run an export',
    action: 'read',
    subject: 'all',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({
      name: 'export',
      identity: (t) => t.id,
    }),
    requiresReview: requiresReview({ bind: () => ({}), reason: 'Exports are reviewed.' }),
  },
  () => 'exported',
);
const ability = { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) };
const alice: Person = { id: 'u1', email: 'alice@example.com' };

/** One lane object, the same for every application below. */
function sharedLane() {
  return {
    items: new InMemoryReviewItemStore(),
    queue: new InProcessDeferredQueue(),
    rehydrate: () => null,
    work: false as const,
  };
}

async function application(lane: ReturnType<typeof sharedLane>, actorKey: ActorKey<Person>): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: ability,
        evidence: new InMemoryEvidenceRecorder(),
        capabilities: [exportRun],
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey,
        review: lane,
      }),
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

/** Alice proposes the export in `moduleRef`; answers the requester key of the item it parked. */
async function parkedKey(moduleRef: TestingModule, lane: ReturnType<typeof sharedLane>): Promise<unknown> {
  const reviews = moduleRef.get(ReviewService);
  const before = new Set((await reviews.pending({ tenant: 'acme' })).map((item) => item.itemId));
  await moduleRef
    .get(ActionContextStore)
    .run({ actor: alice, tenant: 'acme' }, () =>
      moduleRef.get(VerdictService).execute({ capability: 'exports.run', arguments: {} }),
    );
  const parked = (await reviews.pending({ tenant: 'acme' })).filter((item) => !before.has(item.itemId));
  expect(parked).toHaveLength(1);
  return (await lane.items.find(parked[0]!.itemId))?.requesterKey;
}

describe('two applications in one process, one review lane object', () => {
  it("each parks under its own module's actorKey", async () => {
    const lane = sharedLane();
    const byId = await application(lane, (person) => `id:${person.id}`);
    const byEmail = await application(lane, (person) => `email:${person.email}`);
    expect(await parkedKey(byId, lane)).toBe('id:u1');
    expect(await parkedKey(byEmail, lane)).toBe('email:alice@example.com');
    await byId.close();
    await byEmail.close();
  });

  it('control: a lane with its own actorKey keys both applications by it', async () => {
    const lane = { ...sharedLane(), actorKey: (person: Person) => `lane:${person.id}` };
    const first = await application(lane, (person) => `id:${person.id}`);
    const second = await application(lane, (person) => `email:${person.email}`);
    expect(await parkedKey(first, lane)).toBe('lane:u1');
    expect(await parkedKey(second, lane)).toBe('lane:u1');
    await first.close();
    await second.close();
  });
});
