import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { ActionContext } from '@verdict/nestjs';
import { MCP_TOOL_CALL_ID_META } from '@verdict/nestjs/mcp';
import { startShop } from './mcp-shop.fixture.js';

const alice: ActionContext = { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' };

/** A client of the shop's server for alice, over an in-memory transport. */
async function connected(shop: Awaited<ReturnType<typeof startShop>>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await shop.servers.create(alice).connect(serverSide);
  const client = new Client({ name: 'c', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/**
 * docs/mcp.md: a malformed `_meta["verdict/toolCallId"]` is `InvalidParams`, and nothing is resolved, spent, recorded
 * or executed (ADR 0186). A tool-call id holding a lone surrogate (what the server refuses in arguments as not plain
 * JSON) or U+0000 passed the server's check: a refund (confirmation) failed with `InternalError`, logged as an
 * application fault, after a `proposal permit` record; a cancel ran under an id whose fingerprint cannot tell
 * `\ud800` from `\udbff`.
 */
describe('MCP: a _meta["verdict/toolCallId"] no engine stores alike', () => {
  it.each([
    ['refund_order', { orderId: 1, amountCents: 500 }, 'id-\ud800'],
    ['orders.cancel', { orderId: 1 }, 'id-\udbff'],
    ['orders.view', { orderId: 1 }, 'id-\u0000'],
  ])(
    'attack: %s with such an id is InvalidParams; nothing recorded or executed, no fault logged',
    async (name, args, id) => {
      const shop = await startShop();
      const faults: unknown[] = [];
      const logError = Logger.prototype.error;
      Logger.prototype.error = function (...logged: unknown[]) {
        faults.push(...logged);
      } as never;
      try {
        const client = await connected(shop);
        const error = await client.callTool({ name, arguments: args, _meta: { [MCP_TOOL_CALL_ID_META]: id } }).then(
          () => null,
          (rejected: unknown) => rejected,
        );
        await client.close();
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
        expect(shop.evidence.decisions()).toEqual([]);
        expect(shop.effects).toEqual({ cancellations: [], shares: [], refunds: [], returns: [] });
        expect(faults).toEqual([]);
      } finally {
        Logger.prototype.error = logError;
        await shop.close();
      }
    },
  );

  it('attack: over Streamable HTTP too, a JSON "\\ud800" in the id is InvalidParams and nothing is recorded', async () => {
    const shop = await startShop();
    try {
      const token = await shop.tokens.issue('alice', 'acme');
      const body =
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"refund_order","arguments":{"orderId":1,' +
        '"amountCents":500},"_meta":{"verdict/toolCallId":"id-\\ud800"}}}';
      const response = await fetch(`${shop.base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body,
      });
      const answer = await response.text();
      expect(answer).toContain(`"code":${ErrorCode.InvalidParams}`);
      expect(shop.evidence.decisions()).toEqual([]);
    } finally {
      await shop.close();
    }
  });

  it('control: a cancel passed back under an id with a well-formed astral character runs once', async () => {
    const shop = await startShop();
    try {
      const client = await connected(shop);
      const meta = { [MCP_TOOL_CALL_ID_META]: 'id-😀' };
      const result = await client.callTool({ name: 'orders.cancel', arguments: { orderId: 1 }, _meta: meta });
      await client.close();
      expect(result.isError).not.toBe(true);
      expect(shop.effects.cancellations).toEqual([1]);
    } finally {
      await shop.close();
    }
  });
});
