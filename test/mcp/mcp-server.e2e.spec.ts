import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type ActionContext,
  DEFAULT_PUBLIC_MESSAGE,
  ProvenanceWindow,
  VerdictConfigurationError,
  readNotExecutedMessage,
  withProvenance,
} from '@verdict/nestjs';
import {
  MCP_APPROVAL_META,
  MCP_REVIEW_META,
  MCP_TOOL_CALL_ID_META,
  type McpPendingApproval,
  type McpPendingReview,
} from '@verdict/nestjs/mcp';
import { type ShopActor, TokenAuthority, startShop } from './mcp-shop.fixture.js';

/** The text of a tool result's single content item. */
function textOf(result: unknown): string {
  const { content } = result as CallToolResult;
  expect(content).toHaveLength(1);
  const [item] = content;
  if (item.type !== 'text') throw new Error(`expected text content, got ${item.type}`);
  return item.text;
}

/** What a rejected promise of the MCP client was rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to be rejected');
    },
    (error: unknown) => error,
  );
}

/** `orders.share` (an `untrustedContext: 'deny'` capability) was refused over MCP at provenance, and nothing shared. */
function expectSharingRefused(shop: Awaited<ReturnType<typeof startShop>>, result: unknown): void {
  expect((result as CallToolResult).isError).toBe(true);
  expect(readNotExecutedMessage(textOf(result))?.decision).toBe('deny');
  expect(shop.evidence.decisions().at(-1)).toMatchObject({ toolKind: 'mcp', stage: 'provenance', disposition: 'deny' });
  expect(shop.effects.shares).toEqual([]);
}

/** A client of `shop`'s MCP server for `principal`, over the SDK's in-memory transport. */
async function connectInMemory(shop: Awaited<ReturnType<typeof startShop>>, principal: ActionContext): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await shop.servers.create(principal).connect(serverSide);
  const client = new Client({ name: 'in-memory-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** A JSON-RPC `tools/call` POSTed by hand, with `authorization` as the bearer. */
function postToolCall(base: string, authorization: string, name: string, args: object): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

describe('VerdictMcpModule', () => {
  describe('tools/list', () => {
    it('lists only the tools the principal may use: an auditor sees view; a customer sees view, cancel and refund (control)', async () => {
      const shop = await startShop();
      const auditor = await shop.connect(await shop.tokens.issue('carol', 'acme', 'auditor'));
      const customer = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      expect((await auditor.listTools()).tools.map((tool) => tool.name)).toEqual(['orders.view', 'orders.share']);
      const listed = (await customer.listTools()).tools;
      expect(listed.map((tool) => tool.name)).toEqual(['orders.view', 'orders.cancel', 'refund_order', 'orders.share']);
      expect(listed[0]).toMatchObject({
        description: 'View one of your orders',
        inputSchema: { type: 'object', properties: { orderId: { type: 'integer' } }, required: ['orderId'] },
      });
      await shop.close();
    });
  });

  describe('tools/call', () => {
    it('refuses a tool the principal does not see as an unknown tool, and cancels nothing; the customer cancels (control)', async () => {
      const shop = await startShop();
      const auditor = await shop.connect(await shop.tokens.issue('carol', 'acme', 'auditor'));
      const customer = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      const refused = await rejection(auditor.callTool({ name: 'orders.cancel', arguments: { orderId: 1 } }));
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(ErrorCode.InvalidParams);
      const unknown = await rejection(auditor.callTool({ name: 'orders.delete', arguments: { orderId: 1 } }));
      expect((unknown as McpError).message).toBe(
        (refused as McpError).message.replace('orders.cancel', 'orders.delete'),
      );
      expect(shop.effects.cancellations).toEqual([]);
      expect(shop.evidence.decisions()).toEqual([]);

      const cancelled = await customer.callTool({ name: 'orders.cancel', arguments: { orderId: 1 } });
      expect(cancelled.isError).toBeFalsy();
      expect(JSON.parse(textOf(cancelled))).toEqual({ id: 1, status: 'cancelled' });
      expect(shop.effects.cancellations).toEqual([1]);
      // The evidence of the call says it came from an MCP client.
      expect(new Set(shop.evidence.decisions().map((record) => record.toolKind))).toEqual(new Set(['mcp']));
      await shop.close();
    });

    it("gives another tenant's principal the fixed public refusal for a tenant's order, never a reason; its owner reads it (control)", async () => {
      const shop = await startShop();
      const bob = await shop.connect(await shop.tokens.issue('bob', 'globex'));
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      for (const name of ['orders.view', 'orders.cancel']) {
        const refused = await bob.callTool({ name, arguments: { orderId: 1 } });
        expect(refused.isError).toBe(true);
        expect(JSON.parse(textOf(refused))).toEqual({
          status: 'not_executed',
          capability: name,
          decision: 'deny',
          message: DEFAULT_PUBLIC_MESSAGE,
        });
      }
      expect(shop.effects.cancellations).toEqual([]);
      expect(shop.orders[0].status).toBe('placed');

      const viewed = await alice.callTool({ name: 'orders.view', arguments: { orderId: 1 } });
      expect(JSON.parse(textOf(viewed))).toEqual({ id: 1, status: 'placed' });
      await shop.close();
    });

    it('answers a malformed call with InvalidParams and changes nothing: no decision recorded, nothing cancelled', async () => {
      const shop = await startShop();
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      for (const args of [{ orderId: 'one' }, {}, { orderId: -1 }]) {
        const error = await rejection(alice.callTool({ name: 'orders.cancel', arguments: args }));
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      }
      const badId = await rejection(
        alice.callTool({ name: 'orders.cancel', arguments: { orderId: 1 }, _meta: { [MCP_TOOL_CALL_ID_META]: 42 } }),
      );
      expect((badId as McpError).code).toBe(ErrorCode.InvalidParams);
      expect(shop.evidence.decisions()).toEqual([]);
      expect(shop.effects.cancellations).toEqual([]);
      expect(shop.orders[0].status).toBe('placed');
      await shop.close();
    });

    it('executes a retried call once: the retry and a concurrent duplicate get the refusal (execution claim)', async () => {
      const shop = await startShop();
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));
      const call = () => alice.callTool({ name: 'orders.cancel', arguments: { orderId: 1 } });

      const [first, duplicate] = await Promise.all([call(), call()]);
      const retried = await call();
      const outcomes = [first, duplicate, retried].map(
        (result) => readNotExecutedMessage(textOf(result))?.decision ?? 'executed',
      );
      expect(outcomes.sort()).toEqual(['deny', 'deny', 'executed']);
      expect([first, duplicate, retried].filter((result) => result.isError === true)).toHaveLength(2);
      expect(shop.effects.cancellations).toEqual([1]);
      await shop.close();
    });
  });

  describe('faults and provenance', () => {
    it("answers an application fault with a generic InternalError, never the fault's message, even one that is an McpError (never relabelled InvalidParams); other calls go on (control)", async () => {
      const shop = await startShop();
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      // Order 13: a plain Error; order 14: a downstream MCP client's McpError (InvalidParams).
      for (const orderId of [13, 14]) {
        const fault = await rejection(alice.callTool({ name: 'orders.view', arguments: { orderId } }));
        expect(fault).toBeInstanceOf(McpError);
        expect((fault as McpError).code).toBe(ErrorCode.InternalError);
        expect((fault as McpError).message).not.toMatch(/orders-db|5432|refused|rejected/);
      }
      const viewed = await alice.callTool({ name: 'orders.view', arguments: { orderId: 1 } });
      expect(JSON.parse(textOf(viewed))).toEqual({ id: 1, status: 'placed' });
      await shop.close();
    });

    it('asks the ability per request on a lasting in-memory connection: a fault fails that request alone, the next lists the tools (control)', async () => {
      const shop = await startShop();
      const client = await connectInMemory(shop, { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' });

      shop.abilityFaults.next = new Error('ability store unreachable');
      const fault = await rejection(client.listTools());
      expect(fault).toBeInstanceOf(McpError);
      expect((fault as McpError).code).toBe(ErrorCode.InternalError);
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(['orders.view', 'orders.cancel', 'refund_order', 'orders.share']);
      const viewed = await client.callTool({ name: 'orders.view', arguments: { orderId: 1 } });
      expect(JSON.parse(textOf(viewed))).toEqual({ id: 1, status: 'placed' });
      await client.close();
      await shop.close();
    });

    it("treats an MCP call's window as unobserved: an untrustedContext rule denies it; the principal's own request passes (control)", async () => {
      const shop = await startShop();
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      expectSharingRefused(shop, await alice.callTool({ name: 'orders.share', arguments: { orderId: 1 } }));

      const context = { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' };
      const own = await shop.contexts.run(context, () =>
        shop.verdict.execute({ capability: 'orders.share', arguments: { orderId: 1 } }),
      );
      expect(own.executed).toBe(true);
      expect(shop.effects.shares).toEqual([1]);
      await shop.close();
    });

    it("attack: a call over an in-memory connection made inside the application's window is still unobserved; the application's own call there runs (control)", async () => {
      const shop = await startShop();
      const context = { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' };
      const client = await connectInMemory(shop, context);
      // A window with nothing untrusted in it, which the caller (an agent's tool, a request handler) runs under.
      const clean = ProvenanceWindow.of([]);

      expectSharingRefused(
        shop,
        await withProvenance(clean, () => client.callTool({ name: 'orders.share', arguments: { orderId: 1 } })),
      );

      const own = await withProvenance(clean, () =>
        shop.contexts.run(context, () =>
          shop.verdict.execute({ capability: 'orders.share', arguments: { orderId: 1 } }),
        ),
      );
      expect(own.executed).toBe(true);
      expect(shop.effects.shares).toEqual([1]);
      await client.close();
      await shop.close();
    });
  });

  describe('confirmation', () => {
    it('answers a pending result naming the approval; approved over HTTP, the call resumed with its tool-call id executes once', async () => {
      const shop = await startShop();
      const aliceToken = await shop.tokens.issue('alice', 'acme');
      const alice = await shop.connect(aliceToken);
      const args = { orderId: 1, amountCents: 500 };

      const pending = await alice.callTool({ name: 'refund_order', arguments: args });
      expect(pending.isError).toBeFalsy();
      expect(readNotExecutedMessage(textOf(pending))?.decision).toBe('require_confirmation');
      const approval = pending._meta?.[MCP_APPROVAL_META] as McpPendingApproval;
      expect(approval).toMatchObject({
        capability: 'orders.refund',
        reason: 'Refunds move money.',
        description: 'Refund 500 cents on order 1',
        url: `/approvals/${encodeURIComponent(approval.toolCallId)}/approve`,
      });
      expect(Object.keys(approval).sort()).toEqual([
        'capability',
        'description',
        'expiresAt',
        'reason',
        'toolCallId',
        'url',
      ]);
      const resume = { [MCP_TOOL_CALL_ID_META]: approval.toolCallId };

      // Resumed before anyone approved: still pending, nothing refunded.
      const early = await alice.callTool({ name: 'refund_order', arguments: args, _meta: resume });
      expect(readNotExecutedMessage(textOf(early))?.decision).toBe('require_confirmation');
      // Another tenant's customer cannot approve it.
      const bobToken = await shop.tokens.issue('bob', 'globex');
      const foreign = await fetch(`${shop.base}${approval.url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bobToken}` },
      });
      expect(foreign.status).not.toBe(201);
      expect(shop.effects.refunds).toEqual([]);

      const approved = await fetch(`${shop.base}${approval.url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${aliceToken}` },
      });
      expect(approved.status).toBe(201);
      // Other arguments under the approved tool-call id do not ride on the approval.
      const edited = await alice.callTool({
        name: 'refund_order',
        arguments: { ...args, amountCents: 90_000 },
        _meta: resume,
      });
      expect(readNotExecutedMessage(textOf(edited))?.decision).toBe('require_confirmation');
      // Another principal of the tenant passing back Alice's approved tool-call id does not ride on it either.
      const dave = await shop.connect(await shop.tokens.issue('dave', 'acme'));
      const stolen = await dave.callTool({ name: 'refund_order', arguments: args, _meta: resume });
      expect(readNotExecutedMessage(textOf(stolen))).not.toBeNull();
      expect(shop.effects.refunds).toEqual([]);

      const executed = await alice.callTool({ name: 'refund_order', arguments: args, _meta: resume });
      expect(JSON.parse(textOf(executed))).toEqual({ refunded: 500 });
      const replayed = await alice.callTool({ name: 'refund_order', arguments: args, _meta: resume });
      expect(replayed.isError).toBe(true);
      expect(readNotExecutedMessage(textOf(replayed))?.decision).toBe('deny');
      expect(shop.effects.refunds).toEqual([{ orderId: 1, amountCents: 500 }]);
      await shop.close();
    });

    it("in strict mode the reason is the capability's own, then the provenance summary: no argument value, order or principal; nothing runs", async () => {
      const shop = await startShop({ strict: true });
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));
      const reasonOf = (result: unknown) =>
        ((result as CallToolResult)._meta?.[MCP_APPROVAL_META] as McpPendingApproval).reason;
      const unobserved = 'The context window was not observed: it is treated as untrusted.';

      const cancel = await alice.callTool({ name: 'orders.cancel', arguments: { orderId: 1 } });
      expect(reasonOf(cancel)).toBe(unobserved);
      const refund = await alice.callTool({ name: 'refund_order', arguments: { orderId: 1, amountCents: 48_213 } });
      expect(reasonOf(refund)).toBe(`Refunds move money. ${unobserved}`);
      expect(shop.effects).toEqual({ cancellations: [], shares: [], refunds: [], returns: [] });
      await shop.close();
    });
  });

  describe('review', () => {
    it('attack: a call parked for staff review answers a pending result naming it under _meta["verdict/review"] and does not run; its tool-call id again finds the same item', async () => {
      const shop = await startShop({ review: true });
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));

      const parked = await alice.callTool({ name: 'orders.return', arguments: { orderId: 1 } });
      expect(parked.isError).toBeFalsy();
      expect(JSON.parse(textOf(parked))).toEqual({
        status: 'not_executed',
        capability: 'orders.return',
        decision: 'require_review',
        message: DEFAULT_PUBLIC_MESSAGE,
      });
      const review = parked._meta?.[MCP_REVIEW_META] as McpPendingReview;
      expect(parked._meta).toEqual({
        [MCP_REVIEW_META]: {
          toolCallId: expect.stringMatching(/^mcp:/),
          capability: 'orders.return',
          reason: 'Returns are reviewed by staff.',
        },
      });
      // Passed back, the tool-call id finds the item it was parked as: no second item, and still nothing runs.
      const again = await alice.callTool({
        name: 'orders.return',
        arguments: { orderId: 1 },
        _meta: { [MCP_TOOL_CALL_ID_META]: review.toolCallId },
      });
      expect(again).toEqual(parked);
      const items = await shop.reviewItems.pending({ tenant: 'acme', now: new Date() });
      expect(items.map((item) => [item.capability, item.requestKey])).toEqual([['orders.return', review.toolCallId]]);
      expect(shop.evidence.decisions().at(-1)).toMatchObject({
        toolKind: 'mcp',
        stage: 'review',
        disposition: 'require_review',
      });
      expect(shop.effects.returns).toEqual([]);
      expect(shop.orders[0].status).toBe('placed');
      await shop.close();
    });

    it('control: beside the review lane a permitted call answers its output alone, and a refusal is still a tool error without _meta', async () => {
      const shop = await startShop({ review: true });
      const alice = await shop.connect(await shop.tokens.issue('alice', 'acme'));
      const bob = await shop.connect(await shop.tokens.issue('bob', 'globex'));

      const viewed = await alice.callTool({ name: 'orders.view', arguments: { orderId: 1 } });
      expect(viewed).toEqual({ content: [{ type: 'text', text: '{"id":1,"status":"placed"}' }] });
      const refused = await bob.callTool({ name: 'orders.return', arguments: { orderId: 1 } });
      expect(refused).toEqual({
        content: [{ type: 'text', text: expect.stringContaining('"decision":"deny"') }],
        isError: true,
      });
      expect(shop.effects.returns).toEqual([]);
      await shop.close();
    });
  });

  describe('authentication', () => {
    it('answers 500 and runs nothing when authenticate answers a principal without its tenant or with a blank one; with it, the call runs (control)', async () => {
      const shop = await startShop();
      const cancelAs = async (sub: string) =>
        postToolCall(shop.base, `Bearer ${await shop.tokens.issue(sub, 'acme')}`, 'orders.cancel', { orderId: 1 });
      for (const faulty of ['partial', 'blank']) {
        const answer = await cancelAs(faulty);
        expect(answer.status).toBe(500);
        expect(await answer.text()).not.toMatch(/tenant|action context/);
      }
      expect(shop.effects.cancellations).toEqual([]);
      expect(shop.evidence.decisions()).toEqual([]);

      const whole = await cancelAs('alice');
      expect(whole.status).toBe(200);
      expect(shop.effects.cancellations).toEqual([1]);
      await shop.close();
    });

    it('attack: servers.create refuses a principal that is not an action context, before any server exists; a whole principal lists and calls (control)', async () => {
      const shop = await startShop();
      const alice: ShopActor = { id: 'alice', role: 'customer' };
      const faulty = [null, { actor: '', tenant: 'acme' }, { actor: alice, tenant: '' }, { actor: alice }];
      for (const principal of faulty)
        expect(() => shop.servers.create(principal as unknown as ActionContext)).toThrow(VerdictConfigurationError);
      expect(shop.evidence.decisions()).toEqual([]);

      const client = await connectInMemory(shop, { actor: alice, tenant: 'acme' });
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(['orders.view', 'orders.cancel', 'refund_order', 'orders.share']);
      expect(JSON.parse(textOf(await client.callTool({ name: 'orders.cancel', arguments: { orderId: 1 } })))).toEqual({
        id: 1,
        status: 'cancelled',
      });
      await client.close();
      await shop.close();
    });

    it("attack: replacing the principal's actor and tenant after servers.create does not change an open connection's principal; its own order still reads (control)", async () => {
      const shop = await startShop();
      const principal: { actor: ShopActor; tenant: string } = {
        actor: { id: 'alice', role: 'customer' },
        tenant: 'acme',
      };
      const client = await connectInMemory(shop, principal);

      principal.actor = { id: 'bob', role: 'customer' };
      principal.tenant = 'globex';
      const foreign = await client.callTool({ name: 'orders.view', arguments: { orderId: 2 } });
      expect(foreign.isError).toBe(true);
      expect(readNotExecutedMessage(textOf(foreign))?.decision).toBe('deny');

      const own = await client.callTool({ name: 'orders.view', arguments: { orderId: 1 } });
      expect(JSON.parse(textOf(own))).toEqual({ id: 1, status: 'placed' });
      await client.close();
      await shop.close();
    });

    it('answers 401 to an expired, tampered, foreign-key or missing token and runs nothing; a valid token connects (control)', async () => {
      const shop = await startShop();
      const valid = await shop.tokens.issue('alice', 'acme');
      const expired = await shop.tokens.issue('alice', 'acme', 'customer', Math.floor(Date.now() / 1000) - 60);
      const [header, payload, signature] = (await shop.tokens.issue('carol', 'acme', 'auditor')).split('.');
      const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'alice', role: 'customer' };
      const tampered = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
      const otherAuthority = await TokenAuthority.create();
      const foreignKey = await otherAuthority.issue('alice', 'acme');

      for (const token of [expired, tampered, foreignKey]) {
        const error = await rejection(shop.connect(token));
        expect(error).toBeInstanceOf(StreamableHTTPError);
        expect((error as StreamableHTTPError).code).toBe(401);
        const response = await postToolCall(shop.base, `Bearer ${token}`, 'orders.cancel', { orderId: 1 });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect((await postToolCall(shop.base, '', 'orders.cancel', { orderId: 1 })).status).toBe(401);
      expect(shop.effects.cancellations).toEqual([]);
      expect(shop.evidence.decisions()).toEqual([]);

      const response = await postToolCall(shop.base, `Bearer ${valid}`, 'orders.cancel', { orderId: 1 });
      expect(response.status).toBe(200);
      expect(shop.effects.cancellations).toEqual([1]);
      await shop.close();
    });
  });
});
