import { describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  type CapabilityDefinition,
  InMemoryApprovalReceiptStore,
  type JsonValue,
  VerdictService,
  requiresConfirmation,
} from '@verdict/nestjs';
import { documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

/** Alice in two sessions: the same person, another actor object (as a fresh login gives). */
const aliceInSession = (session: string): ActionContext => ({ actor: { id: 'alice', session }, tenant: 'acme' });
const bobInSession: ActionContext = { actor: { id: 'bob', session: 's1' }, tenant: 'acme' };
const byId = (actor: unknown): JsonValue => (actor as { id: string }).id;

async function setup({
  actorKey,
  capabilityKey,
}: { actorKey?: (actor: unknown) => JsonValue; capabilityKey?: typeof byId } = {}) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  let archive: CapabilityDefinition = archiveCapability(fixture, archived);
  if (capabilityKey !== undefined)
    archive = {
      ...archive,
      requiresConfirmation: requiresConfirmation({ ...archive.requiresConfirmation!, actorKey: capabilityKey }),
    };
  const { moduleRef } = await fixture.boot({
    capabilities: [archive],
    approvals: new InMemoryApprovalReceiptStore(),
    ...(actorKey === undefined ? {} : { actorKey }),
  });
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (context: ActionContext, explicitApproval = false) =>
    contexts.run(context, () =>
      verdict.execute(
        { capability: 'documents.archive', arguments: { id: 1 }, toolCallId: 'call_1' },
        { explicitApproval },
      ),
    );
  /** Alice asks in session s1 and approves her own call; the run then resumes in `resumeIn`. */
  const askApproveAndResume = async (resumeIn: ActionContext) => {
    expect((await propose(aliceInSession('s1'))).decision.disposition).toBe('require_confirmation');
    const challenge = await approvals.challengeForToolCall('call_1', aliceInSession('s1'));
    expect(await approvals.approve(challenge!.receiptId, 'call_1', 'customer:alice')).toMatchObject({
      outcome: 'approved',
    });
    const resumed = await propose(resumeIn, true);
    return { resumed, archived };
  };
  return { askApproveAndResume, close: () => moduleRef.close() };
}

describe('the module-wide actorKey', () => {
  it('keys receipts of a capability that gives none: the approved call runs in a new session of the same actor', async () => {
    const { askApproveAndResume, close } = await setup({ actorKey: byId });
    const { resumed, archived } = await askApproveAndResume(aliceInSession('s2'));
    expect(resumed).toMatchObject({ executed: true, output: 'archived 1' });
    expect(archived).toHaveLength(1);
    await close();
  });

  it("never lets another actor's resume consume the approval", async () => {
    const { askApproveAndResume, close } = await setup({ actorKey: byId });
    const { resumed, archived } = await askApproveAndResume(bobInSession);
    expect(resumed.executed).toBe(false);
    expect(archived).toHaveLength(0);
    await close();
  });

  it('without it, receipts bind the whole actor object: the new session is another principal', async () => {
    const { askApproveAndResume, close } = await setup();
    const { resumed, archived } = await askApproveAndResume(aliceInSession('s2'));
    expect(resumed.executed).toBe(false);
    expect(archived).toHaveLength(0);
    await close();
  });

  it("gives way to a capability's own actorKey", async () => {
    const wholeActor = (actor: unknown): JsonValue => actor as JsonValue;
    const { askApproveAndResume, close } = await setup({ actorKey: byId, capabilityKey: wholeActor });
    const { resumed } = await askApproveAndResume(aliceInSession('s2'));
    expect(resumed.executed).toBe(false);
    await close();
  });
});
