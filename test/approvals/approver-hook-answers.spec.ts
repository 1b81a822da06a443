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
  InMemoryApprovalReceiptStore,
  type Proposal,
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

/**
 * An application whose `approver` hook answers the signed-in user as the approver, and `anonymous` for a request
 * nobody signed in to: what a hook written `user && { id, context }` answers then, or a malformed answer.
 */
async function setup(anonymous: () => unknown) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const paused = new Map<string, Proposal>();
  const approvals = new InMemoryApprovalReceiptStore();
  const abilityFactory = {
    async createForContext(context: ActionContext) {
      const documents = await fixture.abilityFactory.createForContext(context);
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('approve', 'Approval', { owner: (context.actor as Actor).id, tenant: context.tenant });
      return createMongoAbility([...documents.rules, ...build().rules]);
    },
  };

  @Controller('assistant/:conversationId')
  @UseGuards(SignedIn)
  @UseInterceptors(ActionContextInterceptor)
  class AssistantController {
    constructor(private readonly verdict: VerdictService) {}

    @Post('archive')
    async archive(@Body() body: { id: number; toolCallId: string }) {
      const proposal = { capability: 'documents.archive', arguments: { id: body.id }, toolCallId: body.toolCallId };
      const result = await this.verdict.execute(proposal);
      if (result.decision.disposition === 'require_confirmation') paused.set(body.toolCallId, proposal);
      return { executed: result.executed, decision: result.decision.disposition };
    }

    @Post('resume/:toolCallId')
    async resume(@Param('toolCallId') toolCallId: string) {
      const result = await this.verdict.execute(paused.get(toolCallId)!, { explicitApproval: true });
      return { executed: result.executed, decision: result.decision.disposition };
    }
  }

  @Controller('approvals/:conversationId')
  @UseGuards(SignedIn)
  class ApprovalsController {
    constructor(private readonly approvals: ApprovalService) {}

    @Post(':toolCallId/approve')
    @ApprovalEndpoint()
    approve(@ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest) {
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
        capabilities: [archiveCapability(fixture, archived)],
        approvals,
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
          requester: (_approver, _toolCallId, context) => ({
            actor: { id: 'alice' },
            tenant: 'acme',
            metadata: { conversationId: context.switchToHttp().getRequest().params.conversationId },
          }),
          canAccessToolCall: (approver, _toolCallId, _context, requester) =>
            (approver.context.actor as Actor).id === (requester.actor as Actor).id,
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
  return { app, archived, as, approvals };
}

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
      const { app, archived, as, approvals } = await setup(anonymous);
      await as('alice').post('/assistant/c-1/archive', { id: 1, toolCallId: 'call_a' }).expect(201);
      const response = await as(undefined).post('/approvals/c-1/call_a/approve');
      const resumed = await as('alice').post('/assistant/c-1/resume/call_a');
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
    const { app, archived, as } = await setup(() => undefined);
    await as('alice').post('/assistant/c-1/archive', { id: 1, toolCallId: 'call_a' }).expect(201);
    const approved = await as('alice').post('/approvals/c-1/call_a/approve');
    const first = await as('alice').post('/assistant/c-1/resume/call_a');
    const second = await as('alice').post('/assistant/c-1/resume/call_a');
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
