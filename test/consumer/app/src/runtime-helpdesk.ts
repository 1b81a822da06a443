import assert from 'node:assert/strict';
import { type INestApplicationContext, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { AppModule } from './app.module.js';

/** The helpdesk as it is, with one agent runtime's Verdict module next to it. */
export async function helpdeskWith(runtimeModule: Type): Promise<INestApplicationContext> {
  const options = { model: new ScriptedChatModel([]), evidence: new InMemoryEvidenceRecorder() };
  @Module({ imports: [AppModule.register(options), runtimeModule] })
  class HelpdeskWithRuntime {}
  return NestFactory.createApplicationContext(HelpdeskWithRuntime, { logger: false });
}

/** Alice, a customer, in her conversation. */
export const alice = {
  actor: { id: 'alice', role: 'customer' as const },
  tenant: 'acme' as const,
  metadata: { conversationId: 'c-a' },
};

/** What a tool answered Alice for ticket 2 (Bob's: the public answer), then for ticket 1 (her own). */
export function assertBobsRefusedAlicesShown(outputs: readonly string[]): void {
  assert.equal(outputs.length, 2);
  assert.deepEqual(JSON.parse(outputs[0]!), {
    status: 'not_executed',
    capability: 'tickets.view',
    decision: 'deny',
    message: 'That is not possible here.',
  });
  assert.deepEqual(JSON.parse(outputs[1]!), { id: 1, title: 'Printer on fire', status: 'open', viewer: 'alice' });
}
