import 'reflect-metadata';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { AppModule } from './app.module.js';
import { TicketRepository } from './tickets.js';

const notExecuted = (capability: string, decision: string) =>
  JSON.stringify({ status: 'not_executed', capability, decision, message: 'That is not possible here.' });

describe('a Nest app on the packed @verdict/nestjs', () => {
  const evidence = new InMemoryEvidenceRecorder();
  const model = new ScriptedChatModel([
    { toolCalls: [{ name: 'view_ticket', args: { ticketId: 2 }, id: 'call_view_2' }] },
    { toolCalls: [{ name: 'view_ticket', args: { ticketId: 1 }, id: 'call_view_1' }] },
    { toolCalls: [{ name: 'close_ticket', args: { ticketId: 1 }, id: 'call_close_1' }] },
    { text: 'Ticket 1 is closed.' },
  ]);
  let app: INestApplication;
  let base: string;
  const post = (path: string, user?: string, body: object = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
      body: JSON.stringify(body),
    });

  before(async () => {
    app = await NestFactory.create(AppModule.register({ model, evidence }), { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  after(() => app.close());

  it('runs the bound tools in a createAgent loop: a CASL deny, a permit, then a pause for approval', async () => {
    const response = await post('/chat/c-alice', 'alice:customer', {
      message: 'Show me ticket 2, then close my ticket 1',
    });
    assert.equal(response.status, 201);
    const { interrupts } = (await response.json()) as {
      interrupts: { type: string; toolCallId: string; capability: string; description: string }[];
    };

    const [denied, viewed] = model.toolMessages().map((message) => message.content);
    assert.equal(denied, notExecuted('tickets.view', 'deny'));
    assert.deepEqual(JSON.parse(String(viewed)), { id: 1, title: 'Printer on fire', status: 'open', viewer: 'alice' });
    const deny = evidence
      .decisions()
      .find((record) => record.capability === 'tickets.view' && record.disposition === 'deny');
    assert.equal(deny?.stage, 'proposal'); // CASL on the proposal target
    assert.match(deny.reason, /view Ticket denied/);

    assert.equal(interrupts.length, 1);
    assert.deepEqual(
      {
        type: interrupts[0]!.type,
        toolCallId: interrupts[0]!.toolCallId,
        capability: interrupts[0]!.capability,
        description: interrupts[0]!.description,
      },
      {
        type: 'verdict.approval_required',
        toolCallId: 'call_close_1',
        capability: 'tickets.close',
        description: 'Close ticket 1',
      },
    );
    assert.doesNotMatch(JSON.stringify(interrupts), /rcpt_/);
    assert.deepEqual(app.get(TicketRepository).closed, []);
  });

  it('lets only the requester approve through the @ApprovalEndpoint() route; the resumed call executes once', async () => {
    assert.equal((await post('/approvals/c-alice/call_close_1/approve')).status, 401);
    assert.equal(
      (await post('/approvals/c-alice/call_close_1/approve', 'bob:customer', { receiptId: 'forged' })).status,
      403,
    );
    assert.equal((await post('/approvals/c-alice/call_close_1/approve', 'carol:support')).status, 403);
    assert.equal((await post('/approvals/c-bob/call_close_1/approve', 'bob:customer')).status, 409);
    assert.deepEqual(app.get(TicketRepository).closed, []);

    const approved = await post('/approvals/c-alice/call_close_1/approve', 'alice:customer');
    assert.equal(approved.status, 201);
    assert.deepEqual(await approved.json(), { outcome: 'approved', interrupts: [], answer: 'Ticket 1 is closed.' });
    assert.deepEqual(app.get(TicketRepository).closed, [1]);
    assert.deepEqual(JSON.parse(String(model.toolMessages().at(-1)?.content)), { closed: 1, by: 'alice' });
    model.assertScriptConsumed();

    assert.equal((await post('/approvals/c-alice/call_close_1/approve', 'alice:customer')).status, 409);
    assert.deepEqual(app.get(TicketRepository).closed, [1]);
  });
});
