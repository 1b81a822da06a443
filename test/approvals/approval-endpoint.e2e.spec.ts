import { describe, expect, it } from '@jest/globals';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Injectable,
  Module,
  Param,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  type ActionContext,
  ActionContextInterceptor,
  type Approver,
  ApprovalEndpoint,
  ApprovalRequest,
  ApprovalService,
  type AuthorizedAction,
  ContainmentService,
  InMemoryApprovalReceiptStore,
  InMemoryContainmentStore,
  type Proposal,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  type VerifiedApprovalRequest,
} from '@verdict/nestjs';
import { type Actor, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

/** Stands in for authentication: the signed-in actor comes from a header the guard trusts. */
@Injectable()
class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    if (req.headers['x-actor']) req.user = { id: String(req.headers['x-actor']) };
    return true;
  }
}

type AccessCheck = (
  approver: Approver,
  toolCallId: string,
  context: ExecutionContext,
  requester: ActionContext,
) => boolean;

/**
 * `anonymous` is what the `approver` hook answers for a request nobody signed in to (`null` unless a test says): what a
 * hook written `user && { id, context }` answers then, or a malformed answer.
 */
async function setup({
  canAccessToolCall,
  anonymous = () => null,
}: { canAccessToolCall?: AccessCheck; anonymous?: () => unknown } = {}) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const approvals = new InMemoryApprovalReceiptStore();
  /** What a chat store and a checkpointer would hold: who owns each conversation, and its paused proposals by tool-call id. */
  const conversations = new Map<string, { owner: string; paused: Map<string, Proposal> }>([
    ['c-alice', { owner: 'alice', paused: new Map() }],
    ['c-bob', { owner: 'bob', paused: new Map() }],
  ]);
  const archive = archiveCapability(fixture, archived);
  const abilityFactory = {
    async createForContext(context: ActionContext) {
      const documents = await fixture.abilityFactory.createForContext(context);
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('approve', 'Approval', {
        owner: (context.actor as Actor).id,
        tenant: context.tenant,
        capability: 'documents.archive',
      });
      return createMongoAbility([...documents.rules, ...build().rules]);
    },
  };
  /** The action context of a conversation: its owner, in it. */
  const contextOf = (conversationId: string): ActionContext | null => {
    const conversation = conversations.get(conversationId);
    return conversation === undefined
      ? null
      : { actor: { id: conversation.owner }, tenant: 'acme', metadata: { conversationId } };
  };

  @Controller('assistant/:conversationId')
  @UseGuards(SignedIn)
  @UseInterceptors(ActionContextInterceptor)
  class AssistantController {
    constructor(private readonly verdict: VerdictService) {}

    @Post('archive')
    async archive(@Param('conversationId') conversationId: string, @Body() body: { id: number; toolCallId: string }) {
      const proposal = { capability: 'documents.archive', arguments: { id: body.id }, toolCallId: body.toolCallId };
      const result = await this.verdict.execute(proposal);
      if (result.decision.disposition === 'require_confirmation')
        conversations.get(conversationId)!.paused.set(body.toolCallId, proposal);
      return { executed: result.executed, decision: result.decision.disposition };
    }

    /** The resumed run, once the human approved: the explicit approval of this tool call. */
    @Post('resume/:toolCallId')
    async resume(@Param('conversationId') conversationId: string, @Param('toolCallId') toolCallId: string) {
      const result = await this.verdict.execute(conversations.get(conversationId)!.paused.get(toolCallId)!, {
        explicitApproval: true,
      });
      return { executed: result.executed, decision: result.decision.disposition };
    }
  }

  @Controller('approvals/:conversationId')
  @UseGuards(SignedIn)
  class ApprovalsController {
    constructor(private readonly approvals: ApprovalService) {}

    @Post(':toolCallId/approve')
    @ApprovalEndpoint()
    approve(@ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest, @Body() _ignored: unknown) {
      const parties = { approver: approver.context, requester };
      return this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id, parties);
    }
  }

  @Module({ controllers: [AssistantController, ApprovalsController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        capabilities: [archive],
        approvals,
        containment: { store: new InMemoryContainmentStore(), cacheTtlMs: 0 },
        resolveContext: (context) => {
          const req = context.switchToHttp().getRequest();
          return {
            actor: { id: req.user.id },
            tenant: 'acme',
            metadata: { conversationId: req.params.conversationId },
          };
        },
        approvalEndpoint: {
          approver: (context) => {
            const user = context.switchToHttp().getRequest().user as { id: string } | undefined;
            if (user === undefined) return anonymous() as Approver | null;
            return { id: `user:${user.id}`, context: { actor: { id: user.id }, tenant: 'acme' } };
          },
          // The approval request names its conversation; the chat store says who asked in it.
          requester: (_approver, _toolCallId, context) =>
            contextOf(context.switchToHttp().getRequest().params.conversationId),
          // Support staff (carol) can read every conversation; customers only their own.
          canAccessToolCall:
            canAccessToolCall ??
            ((approver, _toolCallId, _context, requester) => {
              const id = (approver.context.actor as Actor).id;
              return id === 'carol' || (requester.actor as Actor).id === id;
            }),
        },
      }),
      AppModule,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  const as = (actor: string | undefined) => ({
    post: (path: string, body: object = {}) => {
      const call = request(app.getHttpServer()).post(path).send(body);
      return actor === undefined ? call : call.set('x-actor', actor);
    },
  });
  return { app, archived, as, approvals, containment: moduleRef.get(ContainmentService) };
}

describe('@ApprovalEndpoint()', () => {
  it('answers 403 to an approver whose actor is contained; released, the approval goes through (control)', async () => {
    const { app, archived, as, containment } = await setup();
    await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' }).expect(201);
    // The module has no actorKey: an actor is named by its canonical JSON.
    const alice = { scope: 'actor', subject: '{"id":"alice"}', by: 'operator:1' } as const;
    await containment.engage({ ...alice, reason: 'INC-3' });
    await as('alice').post('/approvals/c-alice/call_a/approve').expect(403);
    await containment.release({ ...alice, reason: 'INC-3 closed' });
    expect((await as('alice').post('/approvals/c-alice/call_a/approve').expect(201)).body).toMatchObject({
      outcome: 'approved',
    });
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: true,
      decision: 'permit',
    });
    expect(archived).toHaveLength(1);
    await app.close();
  });

  it('lets only the right approver approve; the call then executes once', async () => {
    const { app, archived, as } = await setup();
    expect((await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' })).body).toEqual({
      executed: false,
      decision: 'require_confirmation',
    });

    await as(undefined).post('/approvals/c-alice/call_a/approve').expect(401);
    await as('bob').post('/approvals/c-alice/call_a/approve', { receiptId: 'forged' }).expect(403);
    await as('carol').post('/approvals/c-alice/call_a/approve').expect(403);
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: false,
      decision: 'require_confirmation',
    });
    expect(archived).toHaveLength(0);

    const approved = await as('alice').post('/approvals/c-alice/call_a/approve').expect(201);
    expect(approved.body).toMatchObject({
      outcome: 'approved',
      receipt: { approvedBy: 'user:alice', status: 'approved' },
    });
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: true,
      decision: 'permit',
    });
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: false,
      decision: 'deny',
    });
    expect(archived).toHaveLength(1);
    await app.close();
  });

  it('answers 409 for a tool call with no single pending approval in the conversation', async () => {
    const { app, as } = await setup();
    await as('alice').post('/approvals/c-alice/call_unknown/approve').expect(409);
    await app.close();
  });

  it('answers 403 for a conversation the application does not know', async () => {
    const { app, as } = await setup();
    await as('alice').post('/approvals/c-nobody/call_a/approve').expect(403);
    await app.close();
  });

  // Review of #10.3/#10.4, F1: the guard looks the receipt up for the conversation the request names, not by tool-call id alone.
  it("never finds another conversation's pending receipt through a colliding tool-call id in the approver's own conversation", async () => {
    const { app, archived, as } = await setup();
    await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' });

    await as('bob').post('/approvals/c-bob/call_a/approve').expect(409);

    await as('alice').post('/approvals/c-alice/call_a/approve').expect(201);
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: true,
      decision: 'permit',
    });
    expect(archived).toHaveLength(1);
    await app.close();
  });

  it('keeps colliding tool-call ids of two conversations approvable, each by its owner (the control)', async () => {
    const { app, archived, as } = await setup();
    await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' });
    await as('bob').post('/assistant/c-bob/archive', { id: 2, toolCallId: 'call_a' });

    const bobs = await as('bob').post('/approvals/c-bob/call_a/approve').expect(201);
    expect(bobs.body).toMatchObject({ outcome: 'approved', receipt: { approvedBy: 'user:bob' } });
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: false,
      decision: 'require_confirmation',
    });
    expect((await as('bob').post('/assistant/c-bob/resume/call_a')).body).toEqual({
      executed: true,
      decision: 'permit',
    });
    await as('alice').post('/approvals/c-alice/call_a/approve').expect(201);
    expect((await as('alice').post('/assistant/c-alice/resume/call_a')).body).toEqual({
      executed: true,
      decision: 'permit',
    });
    expect(archived.map((action) => (action.target as { id: number }).id)).toEqual([2, 1]);
    await app.close();
  });

  it('refuses to boot a requester hook next to an access check that cannot see the requester (three parameters)', async () => {
    // Written before the requester existed: "does the approver have *a* conversation with this tool-call id?"
    const legacy = ((approver: Approver, toolCallId: string) =>
      (approver.context.actor as Actor).id !== '' && toolCallId !== '') as AccessCheck;
    await expect(setup({ canAccessToolCall: legacy })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(setup({ canAccessToolCall: legacy })).rejects.toThrow(/fewer than four parameters/);
  });
});

const aliceContext = { actor: { id: 'alice' }, tenant: 'acme' };

describe('@ApprovalEndpoint() and what the approver hook answers', () => {
  it.each<[string, () => unknown]>([
    ['undefined (a hook written `user && { id, context }`)', () => undefined],
    ['a promise of undefined', async () => undefined],
    ['null', () => null],
    ['false', () => false],
    ['a string, not an object', () => 'user:alice'],
    ['an approver without an id', () => ({ context: aliceContext })],
    ['an approver whose id is blank', () => ({ id: '   ', context: aliceContext })],
    ['an approver whose id is not a string', () => ({ id: 72, context: aliceContext })],
  ])(
    'attack: answers 401, not 500, when the approver hook answers %s; the call stays unapproved',
    async (_what, anonymous) => {
      const { app, archived, as, approvals } = await setup({ anonymous });
      await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' }).expect(201);
      const response = await as(undefined).post('/approvals/c-alice/call_a/approve');
      const resumed = await as('alice').post('/assistant/c-alice/resume/call_a');
      const pending = await approvals.pendingForToolCall('call_a', new Date());
      await app.close();
      expect({ status: response.status, resumed: resumed.body, archived: archived.length }).toEqual({
        status: 401,
        resumed: { executed: false, decision: 'require_confirmation' },
        archived: 0,
      });
      expect(pending.map((receipt) => receipt.approvedBy ?? null)).toEqual([null]);
    },
  );

  it('utility: the signed-in approver approves, and the call then executes once', async () => {
    const { app, archived, as } = await setup({ anonymous: () => undefined });
    await as('alice').post('/assistant/c-alice/archive', { id: 1, toolCallId: 'call_a' }).expect(201);
    const approved = await as('alice').post('/approvals/c-alice/call_a/approve');
    const first = await as('alice').post('/assistant/c-alice/resume/call_a');
    const second = await as('alice').post('/assistant/c-alice/resume/call_a');
    await app.close();
    expect({ status: approved.status, body: approved.body }).toMatchObject({
      status: 201,
      body: { outcome: 'approved', receipt: { approvedBy: 'user:alice', status: 'approved' } },
    });
    expect([first.body, second.body]).toEqual([
      { executed: true, decision: 'permit' },
      { executed: false, decision: 'deny' },
    ]);
    expect(archived).toHaveLength(1);
  });
});
