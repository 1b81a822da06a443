import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ActionContext } from '@verdict/nestjs';
import { MCP_TOOL_CALL_ID_META } from '@verdict/nestjs/mcp';
import { startShop } from '../mcp/mcp-shop.fixture.js';

/**
 * docs/mcp.md: "a malformed _meta["verdict/toolCallId"] ... → InvalidParams; nothing is resolved, spent, recorded or
 * executed". A tool-call id holding a lone surrogate (the same thing the server refuses in arguments as "not plain
 * JSON") passes the MCP check and reaches the pipeline.
 */
async function connectInMemory(shop: Awaited<ReturnType<typeof startShop>>, principal: ActionContext) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await shop.servers.create(principal).connect(serverSide);
  const client = new Client({ name: 'c', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('lone surrogate in _meta["verdict/toolCallId"]', () => {
  it.each([
    ['refund_order', { orderId: 1, amountCents: 500 }],
    ['orders.cancel', { orderId: 1 }],
    ['orders.view', { orderId: 1 }],
  ])('%s', async (name, args) => {
    const shop = await startShop();
    const logged: unknown[] = [];
    const original = Logger.prototype.error;
    Logger.prototype.error = function (...a: unknown[]) { logged.push(...a); } as never;
    try {
      const client = await connectInMemory(shop, { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' });
      const outcome = await client
        .callTool({ name, arguments: args, _meta: { [MCP_TOOL_CALL_ID_META]: 'id-\ud800' } })
        .then((r) => ({ result: r }), (e: { code?: number; message?: string }) => ({ code: e.code, message: e.message }));
      console.log(name, 'OUTCOME', JSON.stringify(outcome));
      console.log(name, 'RECORDED', JSON.stringify(shop.evidence.decisions().map((d) => [d.stage, d.disposition])));
      console.log(name, 'EFFECTS', JSON.stringify(shop.effects));
      console.log(name, 'SERVER LOG', logged.length === 0 ? '(none)' : String(logged[1]).split('\n')[0]);
      await client.close();
    } finally {
      Logger.prototype.error = original;
      await shop.close();
    }
  });

  it('over Streamable HTTP too', async () => {
    const shop = await startShop();
    const original = Logger.prototype.error;
    Logger.prototype.error = function () {} as never;
    try {
      const token = await shop.tokens.issue('alice', 'acme');
      const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"refund_order","arguments":{"orderId":1,"amountCents":500},"_meta":{"verdict/toolCallId":"id-\\ud800"}}}';
      const response = await fetch(`${shop.base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body,
      });
      console.log('HTTP', response.status, await response.text());
      console.log('HTTP RECORDED', JSON.stringify(shop.evidence.decisions().map((d) => [d.stage, d.disposition])));
    } finally {
      Logger.prototype.error = original;
      await shop.close();
    }
  });
});
