import { afterEach, describe, expect, it } from '@jest/globals';
import { type INestApplicationContext, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ApprovalEndpointHooks,
  FindingCode,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  Severity,
  VerdictAuditModule,
  VerdictModule,
  WiringAudit,
} from '@verdict/nestjs';
import { AbilityBuilder, createMongoAbility } from '@casl/ability';

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

/** An application's approval hooks as written before the `requester` hook existed, or with it. */
async function boot(approvalEndpoint: ApprovalEndpointHooks) {
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => new AbilityBuilder(createMongoAbility).build() },
        evidence: new InMemoryEvidenceRecorder(),
        approvals: new InMemoryApprovalReceiptStore(),
        approvalEndpoint,
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
});
