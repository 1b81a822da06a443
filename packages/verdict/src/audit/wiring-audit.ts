import { Inject, Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InMemoryApprovalReceiptStore } from '../approvals/in-memory-approval-receipt-store.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { DataClass } from '../context-release/data-class.js';
import type { ReleasePolicy } from '../context-release/release-policy.js';
import { ReleasePolicyRegistry } from '../context-release/release-policy-registry.js';
import { InMemoryEvidenceRecorder } from '../evidence/in-memory-evidence-recorder.js';
import { NullEvidenceRecorder } from '../evidence/null-evidence-recorder.js';
import { InMemoryExecutionClaimStore } from '../execution-claims/in-memory-execution-claim-store.js';
import { InMemoryTrajectoryStore } from '../forbidden-states/in-memory-trajectory-store.js';
import { InMemoryRateLimitStore } from '../rate-limits/in-memory-rate-limit-store.js';
import { InMemoryBudgetStore } from '../budgets/in-memory-budget-store.js';
import { InMemoryContainmentStore } from '../containment/in-memory-containment-store.js';
import { InMemoryTaintLedger } from '../provenance/taint/in-memory-taint-ledger.js';
import { InMemoryReviewItemStore } from '../review/in-memory-review-item-store.js';
import { InProcessDeferredQueue } from '../queue/in-process-deferred-queue.js';
import { AUDITED_OPTIONS, type AuditedOptions } from './audited-options.interface.js';
import { approvalEndpoints, reviewEndpoints } from './endpoint-routes.js';
import type { CapabilityWiring } from './capability-wiring.js';
import { FindingCode } from './finding-code.js';
import { behaviourChanges } from '../upgrade/behaviour-changes.js';
import { dataSourcesOf, migrationFindings } from './migration-check.js';
import { resultFormatFindings } from './result-format-findings.js';
import { Severity, isAtLeast } from './severity.js';
import { recordKeyedRuleFindings } from './record-keyed-rule-findings.js';
import { uncheckedProvenanceRuleFindings } from './unchecked-provenance-rule-findings.js';
import { shadowModeFindings } from './shadow-mode-findings.js';
import { VerdictAgents } from './verdict-agents.js';
import { DEFAULT_LOCAL_TRUST_ZONES, type WiringAuditOptions } from './wiring-audit-options.js';
import type { WiringAuditReport } from './wiring-audit-report.js';
import type { WiringFinding } from './wiring-finding.js';

const IN_MEMORY_STORES = [
  ['evidence', InMemoryEvidenceRecorder],
  ['approvals', InMemoryApprovalReceiptStore],
  ['executionClaims', InMemoryExecutionClaimStore],
  ['rateLimits', InMemoryRateLimitStore],
  ['budgets', InMemoryBudgetStore],
  ['trajectories', InMemoryTrajectoryStore],
] as const;

const REMOTE_SENSITIVE: readonly DataClass[] = [DataClass.Pii, DataClass.Sensitive];

/** Not checked, and why: printed with every report. */
const FAULT_MIDDLEWARE_NOTE =
  'Agents without applicationFaultMiddleware are not reported: Verdict tools fail the run themselves on an application fault (ADR 0014).';

/**
 * The read-only wiring audit behind `verdict validate`: lists every capability with its gates and
 * policies, and reports wiring that is unsafe outside tests (docs/validate.md lists each check). It reads
 * the module options, the capability and release-policy registries, the tools `VerdictTools` made, the
 * agents registered with {@link VerdictAgents}, the controllers' `@ApprovalEndpoint()` routes and, when the
 * stores hold a TypeORM DataSource, its migrations. It writes nothing.
 *
 * @example
 * const report = await app.get(WiringAudit).run({ localTrustZones: ['local-machine', 'on-prem'] });
 * if (report.findings.some((f) => f.severity === Severity.Critical)) process.exitCode = 1;
 */
@Injectable()
export class WiringAudit {
  constructor(
    @Inject(AUDITED_OPTIONS) private readonly options: AuditedOptions,
    private readonly capabilities: CapabilityRegistry,
    private readonly releasePolicies: ReleasePolicyRegistry,
    private readonly agents: VerdictAgents,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** Audits the running application's wiring; findings are sorted most serious first. */
  async run(options: WiringAuditOptions = {}): Promise<WiringAuditReport> {
    const testEnvironment = options.testEnvironment ?? process.env.NODE_ENV === 'test';
    const localZones = new Set(options.localTrustZones ?? DEFAULT_LOCAL_TRUST_ZONES);
    const notes = [FAULT_MIDDLEWARE_NOTE];
    if (testEnvironment)
      notes.push('Test environment: in-memory stores and the null evidence recorder are not reported.');
    const definitions = this.capabilities.all();
    const findings = [
      ...(testEnvironment ? [] : this.storeFindings()),
      ...this.confirmationFindings(definitions),
      ...this.reviewEndpointFindings(),
      ...this.agentFindings(),
      ...this.releaseFindings(localZones),
      ...this.mutationFindings(definitions),
      ...this.behaviourChangeFindings(definitions),
      ...resultFormatFindings(definitions),
      ...uncheckedProvenanceRuleFindings(definitions),
      ...recordKeyedRuleFindings(definitions),
      ...shadowModeFindings(definitions),
    ];
    for (const dataSource of dataSourcesOf(this.stores()))
      findings.push(...(await migrationFindings(dataSource, notes)));
    const rank = (finding: WiringFinding) =>
      Object.values(Severity).filter((severity) => isAtLeast(finding.severity, severity)).length;
    return {
      capabilities: definitions.map((definition) => this.wiringOf(definition)),
      releaseRoutes: this.releasePolicies.all().map(describeRoute),
      agents: this.agents.all().map((agent) => ({ name: agent.name, tools: agent.tools.map((tool) => tool.name) })),
      findings: findings.sort((a, b) => rank(b) - rank(a)),
      notes,
    };
  }

  private stores(): unknown[] {
    const { evidence, approvals, executionClaims, rateLimits, budgets, trajectories, containment, provenance, review } =
      this.options;
    return [
      evidence,
      approvals,
      executionClaims,
      rateLimits,
      budgets,
      trajectories,
      containment?.store,
      provenance?.taint?.ledger,
      review?.items,
    ];
  }

  private storeFindings(): WiringFinding[] {
    const findings: WiringFinding[] = [];
    if (this.options.evidence === undefined || this.options.evidence instanceof NullEvidenceRecorder) {
      findings.push({
        code: FindingCode.NullEvidenceRecorder,
        severity: Severity.High,
        subject: 'evidence',
        message:
          'Decisions are recorded nowhere (NullEvidenceRecorder): pass `evidence` to VerdictModule.forRoot (TypeOrmEvidenceRecorder).',
      });
    }
    for (const [option, type] of IN_MEMORY_STORES) {
      const store: unknown = this.options[option];
      if (!(store instanceof type)) continue;
      findings.push({
        code: FindingCode.InMemoryStore,
        severity: Severity.High,
        subject: option,
        message: `\`${option}\` is an ${type.name}: its state is lost on restart and not shared between instances. Use its TypeORM store outside tests.`,
      });
    }
    if (this.options.containment?.store instanceof InMemoryContainmentStore) {
      findings.push({
        code: FindingCode.InMemoryStore,
        severity: Severity.High,
        subject: 'containment.store',
        message:
          '`containment.store` is an InMemoryContainmentStore: a kill switch engaged on one instance (or by the CLI) is never seen by the others, and a restart releases it. Use TypeOrmContainmentStore outside tests.',
      });
    }
    if (this.options.review?.items instanceof InMemoryReviewItemStore) {
      findings.push({
        code: FindingCode.InMemoryStore,
        severity: Severity.High,
        subject: 'review.items',
        message:
          '`review.items` is an InMemoryReviewItemStore: items waiting for a reviewer or a worker are lost on restart, and other instances never see them. Use TypeOrmReviewItemStore outside tests.',
      });
    }
    // One process that works its own in-process queue is a valid deployment (the items are durable, a lost job is
    // re-queued); a web-only process with one queues jobs nobody will ever run.
    if (this.options.review?.queue instanceof InProcessDeferredQueue && this.options.review.work === false) {
      findings.push({
        code: FindingCode.InMemoryStore,
        severity: Severity.High,
        subject: 'review.queue',
        message:
          '`review.queue` is an InProcessDeferredQueue in a process that does not work it (`review.work: false`): no other process can see its jobs, so approved items never run. Use the BullMQ queue (@verdict/nestjs/bullmq).',
      });
    }
    if (this.options.provenance?.taint?.ledger instanceof InMemoryTaintLedger) {
      findings.push({
        code: FindingCode.InMemoryStore,
        severity: Severity.High,
        subject: 'provenance.taint.ledger',
        message:
          '`provenance.taint.ledger` is an InMemoryTaintLedger: a value laundered on one instance is clean on the others and after a restart. Use TypeOrmTaintLedger outside tests.',
      });
    }
    return findings;
  }

  private confirmationFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
    const confirmed = definitions.filter((definition) => definition.requiresConfirmation !== undefined);
    if (confirmed.length === 0) return [];
    const endpoints = approvalEndpoints(this.discovery, this.scanner);
    const problem =
      endpoints.length === 0
        ? 'but no controller has an @ApprovalEndpoint() route: nobody can approve it.'
        : this.options.approvalEndpoint === undefined
          ? `but \`approvalEndpoint\` hooks are not configured, so ${endpoints.join(', ')} cannot authenticate an approver.`
          : undefined;
    if (problem === undefined) return [];
    return confirmed.map((definition) => ({
      code: FindingCode.ConfirmationWithoutApprovalEndpoint,
      severity: Severity.High,
      subject: definition.name,
      message: `Capability "${definition.name}" requires confirmation, ${problem}`,
    }));
  }

  /**
   * `@ReviewEndpoint()` routes without `reviewEndpoint` hooks, or in a module without a review lane: their guard or the
   * review service fails every request with a configuration error.
   */
  private reviewEndpointFindings(): WiringFinding[] {
    const missing =
      this.options.reviewEndpoint === undefined
        ? '`reviewEndpoint` hooks are not configured: it cannot authenticate a reviewer'
        : this.options.review === undefined
          ? 'no `review` lane is configured: there is no item to review'
          : undefined;
    if (missing === undefined) return [];
    return reviewEndpoints(this.discovery, this.scanner).map((route) => ({
      code: FindingCode.ReviewEndpointWithoutHooks,
      severity: Severity.High,
      subject: route,
      message: `${route} is a @ReviewEndpoint() route, but ${missing} and fails every request.`,
    }));
  }

  private behaviourChangeFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
    return behaviourChanges(this.options, definitions).map((change) => ({
      code: FindingCode.BehaviourChange,
      severity: Severity.Medium,
      subject: change.option,
      message: change.message,
    }));
  }

  private agentFindings(): WiringFinding[] {
    return this.agents.all().flatMap((agent) =>
      agent.tools
        .filter((tool) => this.capabilities.bindingOf(tool) === undefined)
        .map((tool) => ({
          code: FindingCode.AgentToolNotGuarded,
          severity: Severity.Critical,
          subject: `${agent.name}/${tool.name}`,
          message: `Agent "${agent.name}" holds tool "${tool.name}", which VerdictTools neither bound nor guarded: its calls skip every gate. Use verdictTools.bound (or .guarded).`,
        })),
    );
  }

  private releaseFindings(localZones: ReadonlySet<string>): WiringFinding[] {
    return this.releasePolicies
      .all()
      .filter((policy) => !policy.permitsNothing && !localZones.has(policy.destination.trustZone))
      .filter((policy) => REMOTE_SENSITIVE.some((dataClass) => policy.classes.has(dataClass)))
      .map((policy) => ({
        code: FindingCode.PiiToRemoteZone,
        severity: Severity.High,
        subject: policy.key,
        message: `Release route ${policy.key} lets ${REMOTE_SENSITIVE.filter((c) => policy.classes.has(c)).join(' and ')} data reach trust zone "${policy.destination.trustZone}", which is not local (local: ${[...localZones].join(', ') || 'none'}).`,
      }));
  }

  private mutationFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
    return definitions
      .filter((definition) => definition.mutates === true && definition.atMostOnce === undefined)
      .map((definition) => ({
        code: FindingCode.MutatingWithoutAtMostOnce,
        severity: Severity.Medium,
        subject: definition.name,
        message: `Capability "${definition.name}" declares mutates: true without atMostOnce: a redelivered tool call repeats its effect. Add atMostOnce({ name, key }).`,
      }));
  }

  private wiringOf(definition: CapabilityDefinition): CapabilityWiring {
    const { executionTarget, rateLimit, atMostOnce, requiresConfirmation, forbidStates } = definition;
    const gates = ['validation', 'target', 'casl'];
    const policies: Record<string, string> = { executionTarget: `${executionTarget.strategy} ${executionTarget.name}` };
    if ((definition.authorizeFields ?? []).length > 0) gates.push('fields');
    if (forbidStates !== undefined) {
      gates.push('forbidStates');
      policies.forbidStates = `per ${forbidStates.scope.id}`;
    }
    if (rateLimit !== undefined) {
      gates.push('rateLimit');
      policies.rateLimit = `${rateLimit.name} ${rateLimit.limit}/${rateLimit.windowSeconds}s`;
    }
    if (definition.budget !== undefined) {
      const { name, limit, per, window } = definition.budget;
      gates.push('budget');
      policies.budget = `${name ?? definition.name} ${limit}/${window}s per ${per}`;
    }
    if (requiresConfirmation !== undefined) {
      gates.push('requiresConfirmation');
      policies.requiresConfirmation = requiresConfirmation.reason;
    }
    if (definition.requiresReview !== undefined) {
      gates.push('requiresReview');
      policies.requiresReview = definition.requiresReview.reason;
    }
    if (atMostOnce !== undefined) {
      gates.push('atMostOnce');
      policies.atMostOnce = atMostOnce.name;
    }
    const tools = this.capabilities
      .bindings()
      .filter((binding) => binding.capability === definition.name)
      .map((binding) => `${binding.tool} (${binding.kind})`);
    return {
      name: definition.name,
      action: definition.action,
      subject: definition.subject,
      gates,
      policies,
      mutates: definition.mutates === true,
      tools,
    };
  }
}

function describeRoute(policy: ReleasePolicy): string {
  return `${policy.key} ${policy.allowanceText}`;
}
