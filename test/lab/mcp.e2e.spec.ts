import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootLab } from './lab-app.fixture.js';

const names = (listing: { tools: { name: string }[] }) => listing.tools.map((tool) => tool.name).sort();

/** A raw Streamable HTTP request to the lab's MCP endpoint, as `user` (the header stands in for a bearer). */
const rpc = (server: Parameters<typeof request>[0], user: string | undefined, method: string, params: object = {}) => {
  const post = request(server)
    .post('/api/mcp')
    .set('accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: 1, method, params });
  return user === undefined ? post : post.set('x-lab-mcp-user', user);
};

describe('storefront lab: an MCP client session lists the tools as two users', () => {
  it('a customer sees the order tools; a staff member, who may only review, is named none of them', async () => {
    const { app } = await bootLab();
    const { body } = await request(app.getHttpServer())
      .post('/api/labs/mcp/listings')
      .send({ users: ['customer:72', 'staff:ana'] })
      .expect(201);
    expect(body.map((listing: { user: string }) => listing.user)).toEqual(['customer:72', 'staff:ana']);
    expect(names(body[0])).toEqual(['orders.cancel', 'orders.view', 'refund_order']);
    expect(names(body[1])).toEqual([]);
  });

  it('the same over HTTP: staff cannot call a tool they are not shown; an unknown user gets 401; bad input is a 400', async () => {
    const { app } = await bootLab();
    const server = app.getHttpServer();
    const listed = await rpc(server, 'customer:72', 'tools/list').expect(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'orders.cancel',
      'orders.view',
      'refund_order',
    ]);
    const cancel = await rpc(server, 'staff:ana', 'tools/call', {
      name: 'orders.cancel',
      arguments: { orderId: 1002 },
    });
    expect(cancel.body.error).toMatchObject({ code: -32602 });
    await rpc(server, 'nobody', 'tools/list').expect(401);
    await rpc(server, undefined, 'tools/list').expect(401);
    await request(server)
      .post('/api/labs/mcp/listings')
      .send({ users: ['customer:72'] })
      .expect(400);
    await request(server)
      .post('/api/labs/mcp/listings')
      .send({ users: ['customer:72', 'root'] })
      .expect(404);
  });
});
