import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ActionContext } from '@verdict/nestjs';
import { MCP_TOOL_CALL_ID_META } from '@verdict/nestjs/mcp';
import { Logger } from '@nestjs/common';
import { startShop } from '../mcp/mcp-shop.fixture.js';

async function connectInMemory(shop: Awaited<ReturnType<typeof startShop>>, principal: ActionContext) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await shop.servers.create(principal).connect(serverSide);
  const client = new Client({ name: 'c', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('scratch mcp server', () => {
  it('lone surrogate tool-call id with the documented approvalUrl', async () => {
    const shop = await startShop();
    const client = await connectInMemory(shop, { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' });
    const logged: unknown[] = [];
    const spy = jestSpy(logged);
    const before = shop.evidence.decisions().length;
    const outcome = await client
      .callTool({ name: 'refund_order', arguments: { orderId: 1, amountCents: 500 }, _meta: { [MCP_TOOL_CALL_ID_META]: 'abc\ud800' } })
      .then((r) => ({ ok: r }), (e: unknown) => ({ err: String(e) }));
    console.log('OUTCOME', JSON.stringify(outcome));
    console.log('LOGGED', String(logged[1]).split('\n').slice(0,6).join('\n'));
    spy();
    console.log('EVIDENCE', JSON.stringify(shop.evidence.decisions().slice(before), null, 1));
    await client.close();
    await shop.close();
  });

  it('evidence of a plain mcp call', async () => {
    const shop = await startShop();
    const client = await connectInMemory(shop, { actor: { id: 'alice', role: 'customer' }, tenant: 'acme' });
    const r = await client.callTool({ name: 'refund_order', arguments: { orderId: 1, amountCents: 424242 }, _meta: { [MCP_TOOL_CALL_ID_META]: 'client-secret-id-xyz' } });
    console.log('RESULT', JSON.stringify(r));
    const all = JSON.stringify(shop.evidence.decisions());
    console.log('RAW in evidence?', all.includes('424242'), all.includes('client-secret-id-xyz'));
    await client.close();
    await shop.close();
  });
});

function jestSpy(logged: unknown[]) {
  const original = Logger.prototype.error;
  Logger.prototype.error = function (...args: unknown[]) { logged.push(...args); } as never;
  return () => { Logger.prototype.error = original; };
}
