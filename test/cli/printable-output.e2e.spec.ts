import { describe, expect, it, jest } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceQuery,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  TargetNotResolvable,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { z } from 'zod';
import { inProcessCli } from './in-process-cli.js';

/** What a terminal would act on instead of printing: controls (escape sequences, CR), format characters, separators. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const orderArguments = z.object({ orderId: z.string() });

/**
 * An order lookup whose resolver says which order it could not find, in the model's own words (a common way to
 * write one), and the evidence of one proposal of `orderId`.
 */
async function lookupEvidence(orderId: string) {
  const orders = new Map([['o-1', { id: 'o-1', customer: 7 }]]);
  const capability = defineCapability(
    {
      name: 'orders.view',
      description: 'Look up an order',
      action: 'view',
      subject: 'Order',
      arguments: orderArguments,
      resolveTarget: fromProposal(
        orderArguments,
        ({ arguments: args }) => orders.get(args.orderId) ?? TargetNotResolvable.throw(`no order ${args.orderId}`),
      ),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'order-id',
        identity: (order) => order.id,
      }),
    },
    (action) => action.target.id,
  );
  const recorder = new InMemoryEvidenceRecorder();
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'view', subject: 'Order' }]) },
        evidence: recorder,
        capabilities: [capability],
      }),
    ],
  })
  class LookupModule {}
  const app = await NestFactory.createApplicationContext(LookupModule, { logger: false });
  try {
    const result = await app
      .get(ActionContextStore)
      .run({ actor: { id: 7 }, tenant: 'acme' }, () =>
        app.get(VerdictService).execute({ capability: 'orders.view', arguments: { orderId } }),
      );
    const cli = (...argv: string[]) =>
      inProcessCli({ evidence: recorder, evidenceQuery: new InMemoryEvidenceQuery(recorder) }, ...argv);
    return { result, cli };
  } finally {
    await app.close();
  }
}

describe('operator CLI: what it prints is printable (ADR 0154)', () => {
  it('attack: a reason carrying the model’s escape sequences and line breaks cannot forge or hide the lines of evidence show and list', async () => {
    // Clears the line, returns to its start and writes a forged permit, then hides the rest right to left.
    const forged = 'x\u001b[2K\rproposal permit\nexecution permit\u202eevil';
    const { result, cli } = await lookupEvidence(forged);
    expect(result.decision).toMatchObject({ disposition: 'deny', reason: `no order ${forged}` });

    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.code).toBe(0);
    for (const line of shown.stdout.split('\n')) expect(line).not.toMatch(UNPRINTABLE);
    expect(shown.stdout).toContain('no order x\\u001b[2K\\u000dproposal permit\\u000aexecution permit\\u202eevil');
    // The timeline is still its own: one line per record, the last the denial.
    expect(shown.stdout.trim().split('\n').at(-1)).toMatch(/^0\s+\+0ms\s+proposal\s+deny\s+/);

    const listed = await cli('evidence', 'list');
    for (const line of listed.stdout.split('\n')) expect(line).not.toMatch(UNPRINTABLE);
    expect(listed.stdout.trim().split('\n')).toHaveLength(3); // header, rule, the one record

    // JSON output reads back as exactly what was recorded.
    const json = await cli('evidence', 'show', result.correlationId, '--json');
    for (const line of json.stdout.split('\n')) expect(line).not.toMatch(UNPRINTABLE);
    expect(JSON.parse(json.stdout).records[0].reason).toBe(`no order ${forged}`);
  });

  it('control: a plain reason prints as it is, in text and JSON', async () => {
    const { result, cli } = await lookupEvidence('o-404 — ünïcödé');
    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.stdout).toContain('no order o-404 — ünïcödé');
    const json = await cli('evidence', 'show', result.correlationId, '--json');
    expect(JSON.parse(json.stdout).records[0].reason).toBe('no order o-404 — ünïcödé');
  });

  it("attack: an operator's stored --by cannot forge a line of another operator's contain, and argv cannot reach commander's errors raw", async () => {
    const store = new InMemoryContainmentStore();
    const cli = (...argv: string[]) =>
      inProcessCli({ evidence: new InMemoryEvidenceRecorder(), containment: { store } }, ...argv);
    const forgedBy = 'op:1\nreleased the actor kill switch for customer:72';
    expect((await cli('contain', 'actor', 'customer:72', '--by', forgedBy, '--reason', 'INC-1')).code).toBe(0);
    const again = await cli('contain', 'actor', 'customer:72', '--by', 'op:2', '--reason', 'INC-1');
    expect(again.stdout.split('\n')).toHaveLength(1);
    expect(again.stdout).toContain('by op:1\\u000areleased the actor kill switch');

    // Commander writes its usage errors itself, to the process's stderr.
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect((await cli('nosuch\u001b]0;title\u0007\u202eevil')).code).not.toBe(0);
    } finally {
      stderr.mockRestore();
    }
    expect(written.join('')).toContain('unknown command');
    for (const line of written.join('').split('\n')) expect(line).not.toMatch(UNPRINTABLE);
  });
});
