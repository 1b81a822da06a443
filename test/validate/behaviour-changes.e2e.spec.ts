import { afterEach, describe, expect, it } from '@jest/globals';
import { type INestApplicationContext, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ApprovalEndpointHooks,
  ExecutionTargetPolicy,
  FindingCode,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type ProvenanceOptions,
  type ProvenancePolicy,
  Severity,
  VerdictAuditModule,
  VerdictModule,
  WiringAudit,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { z } from 'zod';

const apps: INestApplicationContext[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
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
    warn: (m: unknown) => void warnings.push(String(m)),
  };
}

const approver: ApprovalEndpointHooks['approver'] = () => ({
  id: 'staff:7',
  context: { actor: { id: 'staff:7' }, tenant: 'acme' },
});

/** A payout whose IBAN must come from trusted content, or (`undefined`) none: the provenance policy under test. */
function payout(provenance: ProvenancePolicy | undefined) {
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
      provenance,
    },
    () => 'sent',
  );
}

/**
 * An application as written before a behaviour change, or after: its approval hooks, its module provenance
 * options and one payout capability's provenance policy.
 */
async function boot(
  approvalEndpoint: ApprovalEndpointHooks,
  provenance: { module?: ProvenanceOptions; capability?: ProvenancePolicy } = {},
) {
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => new AbilityBuilder(createMongoAbility).build() },
        evidence: new InMemoryEvidenceRecorder(),
        approvals: new InMemoryApprovalReceiptStore(),
        approvalEndpoint,
        provenance: provenance.module,
        capabilities: [payout(provenance.capability)],
      }),
      VerdictAuditModule,
    ],
  })
  class UpgradedApp {}
  const logger = capturingLogger();
  const app = await NestFactory.createApplicationContext(UpgradedApp, { logger });
  apps.push(app);
  const report = await app.get(WiringAudit).run({ testEnvironment: true });
  const changes = report.findings.filter((finding) => finding.code === FindingCode.BehaviourChange);
  return { warnings: logger.warnings, changes };
}

describe('behaviour changes an upgraded application is told about', () => {
  it('warns at boot, and validate reports, approval hooks without a requester: staff approvals would answer 409', async () => {
    const { warnings, changes } = await boot({ approver, canAccessToolCall: () => true });

    expect(warnings.filter((warning) => warning.startsWith('approvalEndpoint.requester:'))).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(/only tool calls they proposed themselves.*409/);
    expect(changes).toEqual([
      expect.objectContaining({ severity: Severity.Medium, subject: 'approvalEndpoint.requester' }),
    ]);
    expect(changes[0]!.message).toMatch(/Set `approvalEndpoint\.requester`/);
  });

  it('says nothing once the requester hook is set, self-approval included (control)', async () => {
    for (const requester of [
      (_approver: unknown, toolCallId: string) => ({
        actor: { id: 'customer:72' },
        tenant: 'acme',
        metadata: { conversationId: toolCallId },
      }),
      (self: { context: { actor: unknown; tenant: string | null } }) => self.context,
    ]) {
      const { warnings, changes } = await boot({
        approver,
        requester: requester as ApprovalEndpointHooks['requester'],
        canAccessToolCall: (_approver, _toolCallId, _context, who) => who.tenant === 'acme',
      });
      expect(warnings.filter((warning) => warning.includes('approvalEndpoint.requester'))).toEqual([]);
      expect(changes).toEqual([]);
    }
  });

  const withRequester: ApprovalEndpointHooks = {
    approver,
    requester: (self) => self.context,
    canAccessToolCall: (_approver, _toolCallId, _context, who) => who.tenant === 'acme',
  };
  const ibanRule: ProvenancePolicy = { arguments: { iban: 'trusted_only' } };

  it('warns at boot, and validate reports, argument rules no acknowledgement covers: unobserved calls and unlabelled history now refuse', async () => {
    for (const capability of [ibanRule, { destinations: ['iban'] }]) {
      const { warnings, changes } = await boot(withRequester, { capability });

      expect(changes.map((change) => change.subject)).toEqual([
        'provenance.unobserved',
        'provenance.unlabelledHistory',
      ]);
      expect(changes.every((change) => change.severity === Severity.Medium)).toBe(true);
      const unobserved = warnings.filter((warning) => warning.startsWith('provenance.unobserved:'));
      expect(unobserved).toHaveLength(1);
      expect(unobserved[0]).toMatch(
        /"payouts\.send".*trusted_only and deny refuse.*trackers\.forAgent\(\)\.middleware\(\)/,
      );
      const history = warnings.filter((warning) => warning.startsWith('provenance.unlabelledHistory:'));
      expect(history).toHaveLength(1);
      expect(history[0]).toMatch(/"payouts\.send".*guard\.contextMessage.*unlabelledHistory: 'untrusted'/);
    }
  });

  it('says nothing of provenance once both changes are acknowledged, or without argument rules (control)', async () => {
    const acknowledged = { unobserved: 'influenced', unlabelledHistory: 'untrusted' } as const;
    for (const provenance of [
      { module: acknowledged, capability: ibanRule },
      { capability: { untrustedContext: 'require_confirmation' } as const },
      { capability: undefined },
    ]) {
      const { warnings, changes } = await boot(withRequester, provenance);
      expect(warnings.filter((warning) => warning.startsWith('provenance.'))).toEqual([]);
      expect(changes).toEqual([]);
    }
  });

  it('names only the acknowledgement still missing', async () => {
    const { changes } = await boot(withRequester, { module: { unobserved: 'influenced' }, capability: ibanRule });

    expect(changes.map((change) => change.subject)).toEqual(['provenance.unlabelledHistory']);
  });
});
