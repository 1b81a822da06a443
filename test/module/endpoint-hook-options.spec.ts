import { describe, expect, it } from '@jest/globals';
import { Controller, type ExecutionContext, type INestApplication, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { createMongoAbility } from '@casl/ability';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalEndpoint,
  type ApprovalEndpointHooks,
  ApprovalRequest,
  type Approver,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewEndpoint,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  type VerifiedApprovalRequest,
  defineCapability,
  fromContext,
  requiresConfirmation,
} from '@verdict/nestjs';
import { z } from 'zod';

/**
 * The hooks of `@ApprovalEndpoint()` and `@ReviewEndpoint()` routes, and `releasePolicies` and `provenance`, come from a
 * `forRootAsync` factory unchecked by the compiler. Malformed hooks (`null`, `'x'`, `{}`, a required hook missing or
 * not a function) used to boot, then answer every approve and review request 500 (or fail the boot with a raw
 * `TypeError`); a `null` `releasePolicies` or `provenance` booted as if left out. Each is now refused at boot with a
 * `VerdictConfigurationError` naming the option (ADR 0167); well-formed hooks serve their routes as documented.
 */

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c1' } };
const archive = defineCapability(
  {
    name: 'documents.archive',
    description: 'Archive a document',
    action: 'read',
    subject: 'all',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ id: 1 })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({ name: 'one', identity: (t) => t.id }),
    requiresConfirmation: requiresConfirmation({ bind: () => ({}), reason: 'Archiving is permanent.' }),
  },
  () => 'archived',
);
const ability = { createForContext: () => createMongoAbility([{ action: 'manage', subject: 'all' }]) };

/** Stands in for authentication: the `x-actor: alice` header signs alice in, no header nobody (→ 401). */
const signedIn = (executionContext: ExecutionContext): Approver | null =>
  executionContext.switchToHttp().getRequest().headers['x-actor'] === 'alice' ? { id: 'alice', context: alice } : null;
const approver = signedIn;
const canAccessToolCall = () => true;
const reviewer = signedIn;

@Controller('approvals')
class Routes {
  @Post(':toolCallId/approve')
  @ApprovalEndpoint()
  approve(@ApprovalRequest() { challenge }: VerifiedApprovalRequest) {
    return { toolCallId: challenge.toolCallId, receipt: typeof challenge.receiptId };
  }

  @Post('reviews/:itemId/approve')
  @ReviewEndpoint()
  review() {
    return { reviewed: true };
  }
}

/** Boots an application with the routes above, Verdict configured through a factory over a working minimum. */
async function boot(options: Record<string, unknown>): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRootAsync({
        useFactory: () =>
          ({
            abilityFactory: ability,
            evidence: new InMemoryEvidenceRecorder(),
            approvals: new InMemoryApprovalReceiptStore(),
            capabilities: [archive],
            ...options,
          }) as never,
      }),
    ],
    controllers: [Routes],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** The error the boot with `options` fails with (fails the test if it boots). */
async function refusal(options: Record<string, unknown>): Promise<unknown> {
  const app = await boot(options).catch((error: unknown) => error);
  if (app instanceof Error) return app;
  await (app as INestApplication).close();
  throw new Error('booted');
}

describe('endpoint hooks given are hooks', () => {
  const requester = () => alice;
  it.each([
    ['approvalEndpoint: null', { approvalEndpoint: null }, 'approvalEndpoint'],
    ["approvalEndpoint: 'x'", { approvalEndpoint: 'x' }, 'approvalEndpoint'],
    ['approvalEndpoint: {}', { approvalEndpoint: {} }, 'approvalEndpoint.approver'],
    ['approvalEndpoint: { approver } only', { approvalEndpoint: { approver } }, 'approvalEndpoint.canAccessToolCall'],
    [
      'approvalEndpoint: { approver, requester } without canAccessToolCall',
      { approvalEndpoint: { approver, requester } },
      'approvalEndpoint.canAccessToolCall',
    ],
    [
      "approvalEndpoint: { approver: 'x', canAccessToolCall }",
      { approvalEndpoint: { approver: 'x', canAccessToolCall } },
      'approvalEndpoint.approver',
    ],
    [
      'approvalEndpoint.requester: null',
      { approvalEndpoint: { approver, canAccessToolCall, requester: null } },
      'approvalEndpoint.requester',
    ],
    [
      "approvalEndpoint.toolCallId: 'toolCallId'",
      { approvalEndpoint: { approver, canAccessToolCall, toolCallId: 'toolCallId' } },
      'approvalEndpoint.toolCallId',
    ],
    ['reviewEndpoint: null', { reviewEndpoint: null }, 'reviewEndpoint'],
    ["reviewEndpoint: 'x'", { reviewEndpoint: 'x' }, 'reviewEndpoint'],
    ['reviewEndpoint: {}', { reviewEndpoint: {} }, 'reviewEndpoint.reviewer'],
    ["reviewEndpoint: { reviewer: 'x' }", { reviewEndpoint: { reviewer: 'x' } }, 'reviewEndpoint.reviewer'],
    ["reviewEndpoint.itemId: 'itemId'", { reviewEndpoint: { reviewer, itemId: 'itemId' } }, 'reviewEndpoint.itemId'],
  ])('attack: %s is refused at boot naming it, not a 500 on every request', async (_label, options, option) => {
    const error = await refusal(options);
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect((error as VerdictConfigurationError).context.option).toBe(option);
    expect((error as Error).message).toContain(`\`${option}\``);
  });

  it('control: well-formed hooks, a literal or an instance, answer 401, 409 and 201 as documented', async () => {
    class ApprovalHooks implements ApprovalEndpointHooks {
      approver(executionContext: ExecutionContext) {
        return signedIn(executionContext);
      }
      canAccessToolCall() {
        return true;
      }
    }
    for (const approvalEndpoint of [{ approver, canAccessToolCall }, new ApprovalHooks()]) {
      const app = await boot({ approvalEndpoint });
      const proposed = await app
        .get(ActionContextStore)
        .run(alice, () =>
          app.get(VerdictService).execute({ capability: 'documents.archive', arguments: {}, toolCallId: 'call_1' }),
        );
      expect(proposed.decision.disposition).toBe('require_confirmation');
      const server = app.getHttpServer();
      expect((await request(server).post('/approvals/call_1/approve')).status).toBe(401);
      expect((await request(server).post('/approvals/call_2/approve').set('x-actor', 'alice')).status).toBe(409);
      const approved = await request(server).post('/approvals/call_1/approve').set('x-actor', 'alice');
      expect(approved.status).toBe(201);
      expect(approved.body).toEqual({ toolCallId: 'call_1', receipt: 'string' });
      await app.close();
    }
  });

  it('control: well-formed review hooks answer 401 and 404 as documented', async () => {
    const app = await boot({
      reviewEndpoint: { reviewer },
      review: {
        items: new InMemoryReviewItemStore(),
        queue: new InProcessDeferredQueue({ attempts: 1 }),
        rehydrate: () => alice,
      },
      executionClaims: new InMemoryExecutionClaimStore(),
      actorKey: (actor: { id: string }) => actor.id,
    });
    const server = app.getHttpServer();
    expect((await request(server).post('/approvals/reviews/item-1/approve')).status).toBe(401);
    expect((await request(server).post('/approvals/reviews/item-1/approve').set('x-actor', 'alice')).status).toBe(404);
    await app.close();
  });
});

describe('releasePolicies and provenance given are what they say', () => {
  it.each([
    ['releasePolicies: null', { releasePolicies: null }, 'releasePolicies', /releasePolicies must be .*not null/],
    ['provenance: null', { provenance: null }, 'provenance', /`provenance` is null, not an object/],
  ])('attack: %s is refused at boot, not read as left out', async (_label, options, option, message) => {
    const error = await refusal(options);
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect((error as VerdictConfigurationError).context.option).toBe(option);
    expect((error as Error).message).toMatch(message);
  });

  it('control: both left out, or given as an empty list and an empty object, boot and decide as before', async () => {
    for (const options of [{}, { releasePolicies: [], provenance: {} }]) {
      const app = await boot(options);
      const proposed = await app
        .get(ActionContextStore)
        .run(alice, () =>
          app.get(VerdictService).execute({ capability: 'documents.archive', arguments: {}, toolCallId: 'call_1' }),
        );
      expect(proposed.decision.disposition).toBe('require_confirmation');
      await app.close();
    }
  });
});
