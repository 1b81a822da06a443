import { describe, expect, it } from '@jest/globals';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Body, CanActivate, Controller, ExecutionContext, Injectable, Module, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  type ActionContext,
  ActionContextInterceptor,
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

async function setup() {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  /** Paused proposals by tool-call id, and who owns each conversation: what a checkpointer and chat store would hold. */
  const paused = new Map<string, { proposal: Proposal; owner: string }>();
  const archive = archiveCapability(fixture, archived);
  const abilityFactory = {
    async createForContext(context: ActionContext) {
      const documents = await fixture.abilityFactory.createForContext(context);
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('approve', 'Approval', { owner: (context.actor as Actor).id, tenant: context.tenant, capability: 'documents.archive' });
      return createMongoAbility([...documents.rules, ...build().rules]);
    },
  };

  @Controller('assistant')
  @UseGuards(SignedIn)
  @UseInterceptors(ActionContextInterceptor)
  class AssistantController {
    constructor(private readonly verdict: VerdictService) {}

    @Post('archive')
    async archive(@Body() body: { id: number; toolCallId: string }) {
      const proposal = { capability: 'documents.archive', arguments: { id: body.id }, toolCallId: body.toolCallId };
      const result = await this.verdict.execute(proposal);
      if (result.decision.disposition === 'require_confirmation') paused.set(body.toolCallId, { proposal, owner: 'alice' });
      return { executed: result.executed, decision: result.decision.disposition };
    }

    /** The resumed run, once the human approved: the explicit approval of this tool call. */
    @Post('resume/:toolCallId')
    async resume(@Param('toolCallId') toolCallId: string) {
      const result = await this.verdict.execute(paused.get(toolCallId)!.proposal, { explicitApproval: true });
      return { executed: result.executed, decision: result.decision.disposition };
    }
  }

  @Controller('approvals')
  @UseGuards(SignedIn)
  class ApprovalsController {
    constructor(private readonly approvals: ApprovalService) {}

    @Post(':toolCallId/approve')
    @ApprovalEndpoint()
    approve(@ApprovalRequest() { challenge, approver }: VerifiedApprovalRequest, @Body() _ignored: unknown) {
      return this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id);
    }
  }

  @Module({ controllers: [AssistantController, ApprovalsController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        capabilities: [archive],
        approvals: new InMemoryApprovalReceiptStore(),
        resolveContext: (context) => ({ actor: { id: context.switchToHttp().getRequest().user.id }, tenant: 'acme' }),
        approvalEndpoint: {
          approver: (context) => {
            const user = context.switchToHttp().getRequest().user;
            return user === undefined ? null : { id: `user:${user.id}`, context: { actor: { id: user.id }, tenant: 'acme' } };
          },
          // Support staff (carol) can read every conversation; customers only their own.
          canAccessToolCall: (approver, toolCallId) => {
            const id = (approver.context.actor as Actor).id;
            return id === 'carol' || paused.get(toolCallId)?.owner === id;
          },
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
  return { app, archived, as };
}

describe('@ApprovalEndpoint()', () => {
  it('lets only the right approver approve; the call then executes once', async () => {
    const { app, archived, as } = await setup();
    expect((await as('alice').post('/assistant/archive', { id: 1, toolCallId: 'call_a' })).body).toEqual({ executed: false, decision: 'require_confirmation' });

    await as(undefined).post('/approvals/call_a/approve').expect(401);
    await as('bob').post('/approvals/call_a/approve', { receiptId: 'forged' }).expect(403);
    await as('carol').post('/approvals/call_a/approve').expect(403);
    expect((await as('alice').post('/assistant/resume/call_a')).body).toEqual({ executed: false, decision: 'require_confirmation' });
    expect(archived).toHaveLength(0);

    const approved = await as('alice').post('/approvals/call_a/approve').expect(201);
    expect(approved.body).toMatchObject({ outcome: 'approved', receipt: { approvedBy: 'user:alice', status: 'approved' } });
    expect((await as('alice').post('/assistant/resume/call_a')).body).toEqual({ executed: true, decision: 'permit' });
    expect((await as('alice').post('/assistant/resume/call_a')).body).toEqual({ executed: false, decision: 'deny' });
    expect(archived).toHaveLength(1);
    await app.close();
  });

  it('answers 409 for a tool call with no single pending approval', async () => {
    const { app, as } = await setup();
    await as('alice').post('/approvals/call_unknown/approve').expect(409);
    await app.close();
  });
});
