import { afterEach, describe, expect, it } from '@jest/globals';
import { type INestApplicationContext, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  FindingCode,
  InMemoryEvidenceRecorder,
  Severity,
  VerdictAuditModule,
  VerdictModule,
  VerdictService,
  WiringAudit,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, runNodeScript, testingKitFixture } from '@verdict/testing-kit';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { inProcessJobsCli } from '../cli/captured-cli.js';
import { inProcessCli } from '../cli/in-process-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `documents.peek` (CASL: only your own documents) in shadow mode or enforced. */
function peekCapability(fixture: ReturnType<typeof documentsFixture>, enforce: boolean) {
  return fixture.documentCapability(
    { name: 'documents.peek', description: 'Show the title of a document', enforce },
    (action) => action.target.title,
  );
}

/**
 * A SQLite file with the evidence of four peeks by an application in this process: alice peeks at bob's document
 * twice and bob once at his own (shadow mode), and alice at bob's once more after enforcement was switched on.
 * `spawnedCli` runs the operator CLI in its own process on that file, `cli` the same CLI in this process.
 */
async function setup() {
  const dataSource = await openDataSource(
    { name: 'sqlite' },
    { entities: verdictEntities, migrations: verdictMigrations },
  );
  cleanups.push(() => dropDataSource(dataSource));
  const peekAs = async (enforce: boolean, calls: Array<[ActionContext, number]>) => {
    const fixture = documentsFixture();
    const { moduleRef } = await fixture.boot({
      capabilities: [peekCapability(fixture, enforce)],
      evidence: new TypeOrmEvidenceRecorder(dataSource),
    });
    cleanups.push(() => moduleRef.close());
    const results = [];
    for (const [context, id] of calls)
      results.push(
        await moduleRef
          .get(ActionContextStore)
          .run(context, () =>
            moduleRef.get(VerdictService).execute({ capability: 'documents.peek', arguments: { id } }),
          ),
      );
    return results;
  };
  const shadowed = await peekAs(false, [
    [alice, 2],
    [alice, 2],
    [bob, 2],
  ]);
  const enforced = await peekAs(true, [[alice, 2]]);
  const script = testingKitFixture('jobs-cli.js');
  const database = dataSource.options.database as string;
  /** The operator CLI (the compiled `jobs-cli.js`) in its own process. */
  const spawnedCli = (...args: string[]) => runNodeScript(script, [database, ...args]);
  /** The same CLI in this process, answering as `spawnedCli` does. */
  const cli = inProcessJobsCli(database);
  return { spawnedCli, cli, shadowed, enforced };
}

describe('operator CLI: shadow mode', () => {
  it('evidence list --shadow lists only what enforcement would have refused', async () => {
    const { spawnedCli, cli, shadowed, enforced } = await setup();
    expect(shadowed.map((result) => result.executed)).toEqual([true, true, true]);
    expect(enforced.map((result) => result.executed)).toEqual([false]);

    // End to end: the compiled CLI in its own process; the other cases in this one.
    const listed = await spawnedCli('evidence', 'list', '--shadow', '--json');
    expect(listed.code).toBe(0);
    const records = JSON.parse(listed.stdout) as Array<{ correlationId: string; stage: string; disposition: string }>;
    expect(records.map((record) => record.disposition)).toEqual(Array(4).fill('would_deny'));
    expect(new Set(records.map((record) => record.correlationId))).toEqual(
      new Set([shadowed[0]!.correlationId, shadowed[1]!.correlationId]),
    );
    expect(listed.stdout).not.toContain('bob plan');

    const text = await cli('evidence', 'list', '--shadow');
    expect(text.code).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(2 + 4);
    // Each would-be refusal with its reason: what enforcement would have refused, and why.
    expect(text.stdout.split('\n')[0]).toMatch(/\breason\b/);
    for (const record of JSON.parse(listed.stdout) as Array<{ reason: string }>)
      expect(text.stdout).toContain(record.reason);
    expect(text.stdout).not.toMatch(/\bpermit\b|\bdeny\b/);

    const all = JSON.parse((await cli('evidence', 'list', '--json')).stdout) as Array<{ disposition: string }>;
    expect(all.map((record) => record.disposition)).toEqual(expect.arrayContaining(['deny', 'permit', 'would_deny']));
  });

  it('evidence shadow-summary counts the would-be refusals per capability, stage and reason, as text and JSON', async () => {
    const { spawnedCli, cli } = await setup();
    const summary = await spawnedCli('evidence', 'shadow-summary', '--json');
    expect(summary.code).toBe(0);
    expect(JSON.parse(summary.stdout)).toEqual([
      {
        capability: 'documents.peek',
        stage: 'execution',
        disposition: 'would_deny',
        reason: expect.any(String),
        calls: 2,
        records: 2,
      },
      {
        capability: 'documents.peek',
        stage: 'proposal',
        disposition: 'would_deny',
        reason: expect.any(String),
        calls: 2,
        records: 2,
      },
    ]);

    const text = await cli('evidence', 'shadow-summary', '--capability', 'documents.peek', '--since', '2000-01-01');
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^capability\s+stage\s+would\s+calls\s+records\s+reason$/);
    expect(lines.slice(2).map((line) => line.split(/\s+/).slice(0, 5))).toEqual([
      ['documents.peek', 'execution', 'deny', '2', '2'],
      ['documents.peek', 'proposal', 'deny', '2', '2'],
    ]);

    const none = await cli('evidence', 'shadow-summary', '--capability', 'orders.refund');
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain('Nothing recorded in shadow mode');
  });

  it('refuses a filter it cannot answer with exit 2', async () => {
    const { cli } = await setup();
    const since = await cli('evidence', 'shadow-summary', '--since', 'yesterday', '--json');
    expect(since.code).toBe(2);
    expect(JSON.parse(since.stderr)).toEqual({ error: expect.stringContaining('--since must be an ISO 8601') });
    const contradiction = await cli('evidence', 'list', '--shadow', '--disposition', 'deny');
    expect(contradiction.code).toBe(2);
    expect(contradiction.stderr).toContain('shadow records are would_deny or would_confirm');
  });
});

/** A logger that keeps what Verdict warns at boot. */
function capturingLogger(): LoggerService & { readonly warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => undefined;
  return {
    warnings,
    log: ignore,
    error: ignore,
    debug: ignore,
    verbose: ignore,
    warn: (message: unknown) => void warnings.push(String(message)),
  };
}

/** A payout whose IBAN rule runs in shadow mode, next to `documents.peek`. */
function payout(enforceIban: boolean, enforceContext = true): CapabilityDefinition {
  return defineCapability(
    {
      name: 'payouts.send',
      description: 'Send a payout',
      action: 'send',
      subject: 'Payout',
      arguments: z.object({ iban: z.string(), amount: z.number() }),
      resolveTarget: fromProposal(({ arguments: args }: { arguments: { iban: string } }) => ({ iban: args.iban })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ iban: string }>({
        name: 'iban',
        identity: (target) => target.iban,
      }),
      provenance: {
        untrustedContext: { rule: 'deny', enforce: enforceContext },
        arguments: { iban: { rule: 'trusted_only', enforce: enforceIban } },
      },
    },
    () => 'sent',
  );
}

async function boot(capabilities: CapabilityDefinition[]) {
  const fixture = documentsFixture();
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        evidence: new InMemoryEvidenceRecorder(),
        capabilities,
        provenance: { unobserved: 'influenced' },
      }),
      VerdictAuditModule,
    ],
  })
  class AppModule {}
  const logger = capturingLogger();
  const app: INestApplicationContext = await NestFactory.createApplicationContext(AppModule, { logger });
  cleanups.push(() => app.close());
  return { app, warnings: logger.warnings };
}

describe('shadow mode is visible at boot and in verdict validate', () => {
  it('warns at boot, naming every capability and rule that is not enforced', async () => {
    const { warnings } = await boot([peekCapability(documentsFixture(), false), payout(false)]);
    const shadow = warnings.filter((warning) => warning.startsWith('Shadow mode:'));
    expect(shadow).toHaveLength(1);
    expect(shadow[0]).toContain('capability "documents.peek"');
    expect(shadow[0]).toContain('provenance rule for argument "iban" of "payouts.send"');
    expect(shadow[0]).toContain('verdict evidence shadow-summary');
  });

  it('reports each as a medium finding, failing validate --fail-on medium', async () => {
    const { app } = await boot([peekCapability(documentsFixture(), false), payout(false)]);
    const report = await app.get(WiringAudit).run({ testEnvironment: true });
    const shadow = report.findings.filter((finding) => finding.code === FindingCode.ShadowMode);
    expect(shadow.map((finding) => [finding.subject, finding.severity])).toEqual([
      ['documents.peek', Severity.Medium],
      ['payouts.send', Severity.Medium],
    ]);
    expect(shadow[1]!.message).toContain('"iban"');

    const cli = await inProcessCli(
      { capabilities: [peekCapability(documentsFixture(), false)] },
      'validate',
      '--json',
      '--fail-on',
      'medium',
    );
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout).findings).toEqual([
      expect.objectContaining({ code: 'shadow-mode', severity: 'medium', subject: 'documents.peek' }),
    ]);
    const high = await inProcessCli(
      { capabilities: [peekCapability(documentsFixture(), false)] },
      'validate',
      '--json',
      '--fail-on',
      'high',
    );
    expect(high.code).toBe(0);
  });

  it('names a provenance context rule in shadow mode at boot and as a finding', async () => {
    const { app, warnings } = await boot([payout(true, false)]);
    const shadow = warnings.filter((warning) => warning.startsWith('Shadow mode:'));
    expect(shadow).toHaveLength(1);
    expect(shadow[0]).toContain('provenance context rule (untrustedContext) of "payouts.send"');
    const report = await app.get(WiringAudit).run({ testEnvironment: true });
    const findings = report.findings.filter((finding) => finding.code === FindingCode.ShadowMode);
    expect(findings.map((finding) => [finding.subject, finding.severity])).toEqual([['payouts.send', Severity.Medium]]);
    expect(findings[0]!.message).toContain('untrustedContext');
  });

  it('control: an enforced application gets no warning and no finding', async () => {
    const { app, warnings } = await boot([peekCapability(documentsFixture(), true), payout(true)]);
    expect(warnings.filter((warning) => warning.startsWith('Shadow mode:'))).toEqual([]);
    const report = await app.get(WiringAudit).run({ testEnvironment: true });
    expect(report.findings.filter((finding) => finding.code === FindingCode.ShadowMode)).toEqual([]);
  });
});
