import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CapabilityExplorer } from './capabilities/capability-explorer.js';
import { CapabilityRegistry } from './capabilities/capability-registry.js';
import { ActionContextInterceptor } from './context/action-context.interceptor.js';
import { ActionContextStore } from './context/action-context.store.js';
import { EvidenceRecorder } from './evidence/evidence-recorder.interface.js';
import { NullEvidenceRecorder } from './evidence/null-evidence-recorder.js';
import { EvidenceQuery } from './evidence/evidence-query.interface.js';
import { InMemoryEvidenceQuery } from './evidence/in-memory-evidence-query.js';
import { InMemoryEvidenceRecorder } from './evidence/in-memory-evidence-recorder.js';
import { UnconfiguredEvidenceQuery } from './evidence/unconfigured-evidence-query.js';
import { PublicMessage } from './public-message.js';
import { assertEvidenceConfigured } from './evidence/evidence-configuration.js';
import { VerdictConfigurationError } from './errors/configuration.error.js';
import { OptionsScopeCheck } from './verdict-module-options.checks.js';
import { VerdictPipeline } from './pipeline/verdict-pipeline.js';
import { ConfigurableVerdictModule, MODULE_OPTIONS_TOKEN } from './verdict.module-definition.js';
import type { VerdictModuleOptions } from './verdict-module-options.interface.js';
import { DEFAULT_PUBLIC_MESSAGE } from './verdict-module-options.interface.js';
import { VerdictService } from './verdict.service.js';
import { ExecutionClaimsService } from './execution-claims/execution-claims.service.js';
import { ApprovalService } from './approvals/approval.service.js';
import { ApprovalBatchService } from './approvals/approval-batch.service.js';
import { ApprovalEndpointGuard } from './approvals/approval-endpoint.guard.js';
import { ContextReleaseService } from './context-release/context-release.service.js';
import { ReleasePolicyExplorer } from './context-release/release-policy-explorer.js';
import { ReleasePolicyRegistry } from './context-release/release-policy-registry.js';
import { ContainmentGate } from './containment/containment.gate.js';
import { DecisionContainment } from './containment/decision-containment.js';
import { ContainmentRules } from './containment/containment-rules.js';
import { ContainmentService } from './containment/containment.service.js';
import { SecurityEventEmitter } from './events/security-event-emitter.js';
import { ReviewService } from './review/review.service.js';
import { ProvenanceContents } from './provenance/provenance-contents.js';
import { assertProvenanceOptions } from './provenance/provenance-configuration.js';
import { ReviewEndpointGuard } from './review/review-endpoint.guard.js';
import { DeferredExecutionWorker } from './queue/deferred-execution.worker.js';
import { BehaviourChangeWarnings } from './upgrade/behaviour-change-warnings.js';
import { ShadowModeWarning } from './shadow/shadow-mode-warning.js';
import { ACTION_CONTEXT_OPTIONS } from './context/action-context-options.interface.js';
import { APPROVAL_OPTIONS } from './approvals/approval-options.interface.js';
import { CAPABILITY_REGISTRY_OPTIONS } from './capabilities/capability-registry-options.interface.js';
import { KILL_SWITCH_OPTIONS } from './containment/kill-switch-options.interface.js';
import { CONTEXT_RELEASE_OPTIONS } from './context-release/context-release-options.interface.js';
import { SECURITY_EVENT_OPTIONS } from './events/security-event-options.interface.js';
import { PROVENANCE_STAGE_OPTIONS } from './provenance/provenance-stage-options.interface.js';
import { QUARANTINE_OPTIONS } from './quarantine/quarantine-options.interface.js';
import { QuarantineService } from './quarantine/quarantine.service.js';
import { REVIEW_OPTIONS } from './review/review-options.interface.js';
import { EXECUTION_CLAIM_OPTIONS } from './execution-claims/execution-claim-options.interface.js';
import { BUDGET_OPTIONS } from './budgets/budget-options.interface.js';
import { MODEL_BUDGET_OPTIONS } from './budgets/model-budget-options.interface.js';
import { ModelBudgetGate } from './budgets/model-budget.gate.js';
import { AUDITED_OPTIONS } from './audit/audited-options.interface.js';
import { AUTHORIZATION_OPTIONS } from './authorization/authorization-options.interface.js';
import { BEHAVIOUR_CHANGE_OPTIONS } from './upgrade/behaviour-change-options.interface.js';

/**
 * Each mechanism's slice of the options, under its own token: the module options compose the slices, so each
 * token is the same object, typed as the mechanism declares it (ADR 0071).
 */
const OPTION_SLICES = [
  AUDITED_OPTIONS,
  BEHAVIOUR_CHANGE_OPTIONS,
  ACTION_CONTEXT_OPTIONS,
  APPROVAL_OPTIONS,
  AUTHORIZATION_OPTIONS,
  CAPABILITY_REGISTRY_OPTIONS,
  KILL_SWITCH_OPTIONS,
  CONTEXT_RELEASE_OPTIONS,
  EXECUTION_CLAIM_OPTIONS,
  BUDGET_OPTIONS,
  MODEL_BUDGET_OPTIONS,
  SECURITY_EVENT_OPTIONS,
  PROVENANCE_STAGE_OPTIONS,
  QUARANTINE_OPTIONS,
  REVIEW_OPTIONS,
];

/** What the core module provides to the application (everything but boot-time discovery). */
const PUBLIC_PROVIDERS = [
  CapabilityRegistry,
  ActionContextStore,
  ActionContextInterceptor,
  VerdictPipeline,
  VerdictService,
  ExecutionClaimsService,
  ApprovalService,
  ApprovalBatchService,
  ApprovalEndpointGuard,
  // The endpoint guards' kill-switch check: resolved in the application's module, so exported.
  DecisionContainment,
  ReleasePolicyRegistry,
  ContextReleaseService,
  ContainmentService,
  ReviewService,
  ReviewEndpointGuard,
  DeferredExecutionWorker,
  QuarantineService,
  ModelBudgetGate,
];

/**
 * What the core module exports: what applications inject, and what Verdict's own modules (LangChain, AI SDK,
 * OpenAI Agents, MCP, the CLI) reach through `VerdictCoreAccessModule` whatever `isGlobal` says.
 */
export const CORE_EXPORTS = [
  ...PUBLIC_PROVIDERS,
  EvidenceRecorder,
  EvidenceQuery,
  PublicMessage,
  MODULE_OPTIONS_TOKEN,
  ...OPTION_SLICES,
];

/**
 * Owns what the application has one of: the options (and the stores they carry), the capability registry
 * with boot-time discovery, the pipeline and the services over it. Global unless `isGlobal: false`; one per
 * application (a second is refused at boot, ADR 0179). Applications import the {@link VerdictModule} facade,
 * never this module.
 *
 * @internal Not exported from the package entry.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    // First: it stays a singleton whatever the options inject, and refuses options that are not (ADR 0206).
    OptionsScopeCheck,
    ...PUBLIC_PROVIDERS,
    CapabilityExplorer,
    ReleasePolicyExplorer,
    BehaviourChangeWarnings,
    ShadowModeWarning,
    ...OPTION_SLICES.map((slice) => ({ provide: slice, useExisting: MODULE_OPTIONS_TOKEN })),
    ContainmentGate,
    ContainmentRules,
    SecurityEventEmitter,
    {
      provide: ProvenanceContents,
      inject: [MODULE_OPTIONS_TOKEN],
      // The module's `provenance`, checked once per boot, capability or none (the quarantine and trackers use it).
      useFactory: (options: VerdictModuleOptions) => {
        assertProvenanceOptions(options);
        return new ProvenanceContents(options.provenance?.contents);
      },
    },
    {
      provide: EvidenceRecorder,
      inject: [MODULE_OPTIONS_TOKEN],
      useFactory: (options: VerdictModuleOptions) => {
        assertEvidenceConfigured(options);
        return options.evidence ?? new NullEvidenceRecorder();
      },
    },
    {
      provide: EvidenceQuery,
      inject: [MODULE_OPTIONS_TOKEN],
      useFactory: ({ evidenceQuery, evidence }: VerdictModuleOptions) =>
        evidenceQuery ??
        (evidence instanceof InMemoryEvidenceRecorder
          ? new InMemoryEvidenceQuery(evidence)
          : new UnconfiguredEvidenceQuery()),
    },
    {
      provide: PublicMessage,
      inject: [MODULE_OPTIONS_TOKEN],
      useFactory: ({ publicMessage }: VerdictModuleOptions) => {
        if (publicMessage !== undefined && typeof publicMessage !== 'string')
          throw new VerdictConfigurationError(
            `\`publicMessage\` is ${publicMessage === null ? 'null' : `a ${typeof publicMessage}`}, not a string: pass the text the model is told when a proposal is not executed, or leave it out.`,
            { option: 'publicMessage' },
          );
        // A blank message is no message: the model would have nothing to tell the user of a proposal not executed.
        if (publicMessage !== undefined && publicMessage.trim() === '')
          throw new VerdictConfigurationError(
            '`publicMessage` is blank: pass the text the model is told when a proposal is not executed, or leave it out.',
            { option: 'publicMessage' },
          );
        return publicMessage ?? DEFAULT_PUBLIC_MESSAGE;
      },
    },
  ],
  exports: CORE_EXPORTS,
})
export class VerdictCoreModule extends ConfigurableVerdictModule {}
