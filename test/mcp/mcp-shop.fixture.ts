import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { Controller, type INestApplication, Module, Post, UseGuards } from '@nestjs/common';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalEndpoint,
  ApprovalRequest,
  ApprovalService,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  TargetNotResolvable,
  type VerifiedApprovalRequest,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fromProposal,
  requiresConfirmation,
  requiresReview,
} from '@verdict/nestjs';
import { McpServerFactory, VerdictMcpModule } from '@verdict/nestjs/mcp';
import { type GenerateKeyPairResult, type JWTPayload, SignJWT, generateKeyPair, jwtVerify } from 'jose';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** A customer (or an auditor, who may only view) of one tenant, as the bearer token names them. */
export interface ShopActor {
  readonly id: string;
  readonly role: 'customer' | 'auditor';
}

interface Order {
  readonly id: number;
  readonly tenantId: string;
  readonly customerId: string;
  status: 'placed' | 'cancelled';
}

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'verdict-mcp-test';
const orderId = z.object({ orderId: z.number().int().positive() });
const refund = z.object({ orderId: z.number().int().positive(), amountCents: z.number().int().positive() });

/** Issues and verifies the test's bearer tokens (ES256, a key made for the run). */
export class TokenAuthority {
  private constructor(
    private readonly privateKey: GenerateKeyPairResult['privateKey'],
    readonly publicKey: GenerateKeyPairResult['publicKey'],
  ) {}

  static async create(): Promise<TokenAuthority> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return new TokenAuthority(privateKey, publicKey);
  }

  /** A token for `sub` in `tenant`; `expiresAt` in epoch seconds (default: in five minutes). */
  issue(sub: string, tenant: string, role: ShopActor['role'] = 'customer', expiresAt?: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ tenant, role })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(Math.min(now, (expiresAt ?? now) - 60))
      .setExpirationTime(expiresAt ?? now + 300)
      .sign(this.privateKey);
  }

  /** The action context a valid bearer names, or `null` (missing, expired, tampered, another key). */
  async principalOf(authorization: string | undefined): Promise<ActionContext | null> {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.publicKey, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['ES256'],
      }));
    } catch {
      return null;
    }
    const { sub, tenant, role } = payload;
    if (typeof sub !== 'string' || typeof tenant !== 'string' || (role !== 'customer' && role !== 'auditor'))
      return null;
    return { actor: { id: sub, role } satisfies ShopActor, tenant };
  }
}

/** Guards the approval route with the same bearer tokens. */
@Injectable()
class BearerGuard implements CanActivate {
  constructor(private readonly tokens: TokenAuthority) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest();
    request.principal = await this.tokens.principalOf(request.headers.authorization);
    return request.principal !== null;
  }
}

@Controller('approvals')
@UseGuards(BearerGuard)
class ApprovalsController {
  constructor(private readonly approvals: ApprovalService) {}

  @Post(':toolCallId/approve')
  @ApprovalEndpoint()
  approve(@ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest) {
    return this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id, {
      approver: approver.context,
      requester,
    });
  }
}

/**
 * A shop on loopback: orders of two tenants, exposed as MCP tools (`orders.view`, `orders.cancel` at most once,
 * `orders.refund` after a human's approval) at POST /mcp, and the approval route POST /approvals/:toolCallId/approve.
 * With `strict`, provenance's strict mode asks for confirmation of the consequential capabilities. With `review`,
 * `orders.return` is a tool too, parked for staff review (a web-only lane: no worker runs it here).
 */
export async function startShop({ strict = false, review = false } = {}) {
  const tokens = await TokenAuthority.create();
  const orders: Order[] = [
    { id: 1, tenantId: 'acme', customerId: 'alice', status: 'placed' },
    { id: 2, tenantId: 'globex', customerId: 'bob', status: 'placed' },
  ];
  const effects = {
    cancellations: [] as number[],
    shares: [] as number[],
    refunds: [] as { orderId: number; amountCents: number }[],
    returns: [] as number[],
  };
  const evidence = new InMemoryEvidenceRecorder();
  const findOrder = (id: number, tenant: string | null): Order => {
    // Order 13 stands for a database that fails: an application fault, never a decision.
    if (id === 13) throw new Error('connection to orders-db.internal:5432 refused');
    // Order 14: the orders service is itself reached over MCP, and its client throws the SDK's own error.
    if (id === 14) throw new McpError(ErrorCode.InvalidParams, 'orders-db.internal:5432 rejected the query');
    return (
      orders.find((order) => order.id === id && order.tenantId === tenant) ??
      TargetNotResolvable.throw('no such order in the tenant')
    );
  };
  const inTenant = fromProposal(orderId, ({ arguments: a, context }) => findOrder(a.orderId, context.tenant));
  const byId = ExecutionTargetPolicy.refresh({
    name: 'order-by-id',
    identity: (order: Order) => ({ tenant: order.tenantId, id: order.id }),
    refresh: (order: Order) =>
      orders.find((row) => row.id === order.id && row.tenantId === order.tenantId) ??
      TargetNotResolvable.throw('order is gone'),
  });
  const common = { subject: 'Order', resolveTarget: inTenant, executionTarget: byId } as const;
  const view = defineCapability(
    { ...common, name: 'orders.view', description: 'View one of your orders', action: 'view', arguments: orderId },
    ({ target }) => ({ id: target.id, status: target.status }),
  );
  const cancel = defineCapability(
    {
      ...common,
      name: 'orders.cancel',
      description: 'Cancel one of your orders',
      action: 'cancel',
      arguments: orderId,
      mutates: true,
      atMostOnce: atMostOnce({
        name: 'cancel-order',
        key: (_envelope, order: Order) => ({ tenant: order.tenantId, order: order.id }),
      }),
    },
    ({ target }) => {
      effects.cancellations.push(target.id);
      target.status = 'cancelled';
      return { id: target.id, status: target.status };
    },
  );
  const refundOrder = defineCapability(
    {
      ...common,
      resolveTarget: fromProposal(refund, ({ arguments: a, context }) => findOrder(a.orderId, context.tenant)),
      name: 'orders.refund',
      description: 'Refund part of one of your orders',
      action: 'refund',
      arguments: refund,
      mutates: true,
      requiresConfirmation: requiresConfirmation<z.infer<typeof refund>, Order>({
        bind: (_envelope, order) => ({ order: order.id }),
        reason: 'Refunds move money.',
        describe: ({ arguments: a }, order) => `Refund ${a.amountCents} cents on order ${order.id}`,
        subject: (_envelope, order) => ({ customerId: order.customerId, tenantId: order.tenantId }),
        actorKey: (actor: ShopActor) => actor.id,
      }),
    },
    ({ target, arguments: a }) => {
      effects.refunds.push({ orderId: target.id, amountCents: a.amountCents });
      return { refunded: a.amountCents };
    },
  );
  // Sending an order's receipt is refused under untrusted (or unobserved) context: over MCP the window is unseen.
  const share = defineCapability(
    {
      ...common,
      name: 'orders.share',
      description: "E-mail one of your orders' receipt",
      action: 'view',
      arguments: orderId,
      consequential: true,
      provenance: { untrustedContext: 'deny' },
    },
    ({ target }) => {
      effects.shares.push(target.id);
      return { shared: target.id };
    },
  );
  const returnOrder = defineCapability(
    {
      ...common,
      name: 'orders.return',
      description: 'Return one of your orders',
      action: 'refund',
      arguments: orderId,
      mutates: true,
      requiresReview: requiresReview<z.infer<typeof orderId>, Order, ShopActor>({
        bind: (_envelope, order) => ({ order: order.id, status: order.status }),
        reason: 'Returns are reviewed by staff.',
        actorKey: (actor) => actor.id,
      }),
    },
    ({ target }) => {
      effects.returns.push(target.id);
      return { returned: target.id };
    },
  );
  const reviewItems = new InMemoryReviewItemStore();
  /** A fault the next ability creation throws, once (a database blip behind the application's ability factory). */
  const abilityFaults: { next?: Error } = {};
  const abilityFactory = {
    createForContext({ actor, tenant }: ActionContext) {
      const fault = abilityFaults.next;
      abilityFaults.next = undefined;
      if (fault !== undefined) throw fault;
      const { id, role } = actor as ShopActor;
      const { can, build } = new AbilityBuilder(createMongoAbility);
      if (role === 'auditor') can('view', 'Order', { tenantId: tenant });
      else {
        can(['view', 'cancel', 'refund'], 'Order', { tenantId: tenant, customerId: id });
        can('approve', 'Approval', { tenantId: tenant, customerId: id });
      }
      return build();
    },
  };

  @Module({
    controllers: [ApprovalsController],
    providers: [BearerGuard, { provide: TokenAuthority, useValue: tokens }],
  })
  class ShopModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        capabilities: [view, cancel, refundOrder, share, ...(review ? [returnOrder] : [])],
        evidence,
        approvals: new InMemoryApprovalReceiptStore(),
        executionClaims: new InMemoryExecutionClaimStore(),
        ...(strict ? { provenance: { strict } } : {}),
        ...(review ? { review: { items: reviewItems, queue: new InProcessDeferredQueue(), work: false } } : {}),
        actorKey: (actor) => (actor as ShopActor).id,
        approvalEndpoint: {
          approver: (context) => {
            const principal: ActionContext | null = context.switchToHttp().getRequest().principal;
            return principal === null
              ? null
              : { id: `customer:${(principal.actor as ShopActor).id}`, context: principal };
          },
          // Over MCP a customer approves the calls they asked for themselves.
          requester: (approver) => approver.context,
          canAccessToolCall: (approver, _toolCallId, _context, requester) => approver.context === requester,
        },
      }),
      VerdictMcpModule.forRoot({
        tools: [
          'orders.view',
          'orders.cancel',
          { capability: 'orders.refund', name: 'refund_order' },
          'orders.share',
          ...(review ? ['orders.return'] : []),
        ],
        authenticate: async (request: IncomingMessage) => {
          const principal = await tokens.principalOf(request.headers.authorization);
          // Subject `partial` stands for a hook that forgot the tenant, `blank` for one that read an empty tenant
          // claim: application faults, never principals.
          const id = (principal?.actor as ShopActor | undefined)?.id;
          if (id === 'blank') return { actor: principal!.actor, tenant: '' };
          if (id !== 'partial') return principal;
          return { actor: principal!.actor } as ActionContext;
        },
        approvalUrl: (toolCallId) => `/approvals/${encodeURIComponent(toolCallId)}/approve`,
      }),
      ShopModule,
    ],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication({ logger: false, forceCloseConnections: true });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const clients: Client[] = [];

  /** A real MCP client of the shop, connected with `token` as its bearer. */
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'mcp-test-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const close = async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  };
  return {
    base,
    tokens,
    orders,
    effects,
    evidence,
    /** The review items `orders.return` parks (with `review`). */
    reviewItems,
    connect,
    close,
    verdict: moduleRef.get(VerdictService),
    contexts: moduleRef.get(ActionContextStore),
    /** The factory of a server for another transport than HTTP (stdio, in-memory). */
    servers: moduleRef.get(McpServerFactory),
    abilityFaults,
  };
}
