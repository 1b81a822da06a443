import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InProcessDeferredQueue, VerdictModule } from '@verdict/nestjs';
import { VerdictAiSdkModule } from '@verdict/nestjs/ai-sdk';
import { VerdictLangChainModule } from '@verdict/nestjs/langchain';
import { VerdictAgentsModule } from '@verdict/nestjs/openai-agents';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmBudgetStore,
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmProvenanceLedger,
  TypeOrmRateLimitStore,
  TypeOrmReviewItemStore,
  TypeOrmTrajectoryStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  RecordsCapabilities,
  RefundCapabilities,
  ShipmentCapabilities,
  StorefrontCapabilities,
  SupportCapabilities,
  storefrontContext,
  storefrontEntities,
  storefrontMigrations,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { CrossCustomerComparison } from './comparison/cross-customer.comparison.js';
import { GateScenarios } from './gates/gate-scenarios.js';
import { ConfirmationScenario } from './approvals/confirmation.scenario.js';
import { BatchApprovalScenario } from './approvals/batch-approval.scenario.js';
import { LabController } from './lab.controller.js';
import { LAB_OPTIONS, type LabOptions } from './lab-options.js';
import { LabSeeder } from './lab-seeder.js';
import { LabRefusalFilter } from './refusals/lab-refusal.filter.js';
import { LabRefusals } from './refusals/lab-refusals.js';
import { ExfiltrationChainScenario } from './forbidden-states/exfiltration-chain.scenario.js';
import { EvidenceTrail } from './runs/evidence-trail.js';
import { LabCalls } from './runs/lab-calls.js';
import { LAB_CONVERSATION, labApprover } from './session/lab-actors.js';
import { LabAbilityFactory } from './review-lane/lab-ability.factory.js';
import { LabQueueModule } from './review-lane/lab-queue.module.js';
import { labActorKey, labReviewer } from './review-lane/lab-reviewers.js';
import { ReviewLaneScenario } from './review-lane/review-lane.scenario.js';
import { StaffRefundCapabilities } from './review-lane/staff-refund.capabilities.js';
import { LabConversation, LabConversationModule } from './session/lab-conversation.js';
import { ConcurrentWrite } from './why-verdict/concurrent-write.js';
import { WhyVerdictCases } from './why-verdict/why-verdict.cases.js';
import { DestinationReleaseScenario } from './releases/destination-release.scenario.js';
import { LabReleasePolicies } from './releases/lab-release-policies.js';
import { CarrierLabelCapabilities } from './claims/carrier-label.capabilities.js';
import { ClaimsPanelScenario } from './claims/claims-panel.scenario.js';
import { AttackPackScenario } from './evaluation/attack-pack.scenario.js';
import { LiveLabProvider } from './live/live-lab-provider.js';
import { LiveLabScenarios } from './live/live-lab.scenarios.js';
import { LiveRuntimeRuns } from './live/live-runtime-runs.js';
import { InjectedReviewScenario } from './provenance/injected-review.scenario.js';
import { VerdictMcpModule } from '@verdict/nestjs/mcp';
import { LAB_MCP_TOOLS, LAB_MCP_USER_HEADER, McpSessionScenario, labMcpPrincipal } from './mcp/mcp-session.scenario.js';
import { PayoutCapabilities } from './provenance/payout.capabilities.js';
import { ReviewAgent } from './provenance/review-agent.js';
import { BudgetPageScenario } from './budgets/budget-page.scenario.js';
import { GoodwillCreditCapabilities } from './budgets/goodwill-credit.capabilities.js';
import { LAB_MODEL_BUDGETS } from './budgets/lab-model-budgets.js';
import { BillPaymentCapabilities } from './quarantine/bill-payment.capabilities.js';
import { BillReadingQuarantinedModel } from './quarantine/bill-reading-quarantined-model.js';
import { BillReleasePolicies } from './quarantine/bill-release-policies.js';
import { PayBillInFileScenario } from './quarantine/pay-bill-in-file.scenario.js';

/**
 * One lab session: the synthetic storefront on its own embedded SQLite database, Verdict with TypeORM
 * stores, and the labs' JSON API. The lab server boots one of these per browser session.
 */
@Module({})
export class LabModule {
  static forRoot(options: LabOptions): DynamicModule {
    // The quarantine lab's quarantined model: one per session, the lab sets whether the file misleads it.
    const quarantinedModel = new BillReadingQuarantinedModel();
    return {
      module: LabModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: options.database,
          fileMustExist: options.mustExist ?? false,
          entities: [...storefrontEntities, ...verdictEntities],
          migrations: [...storefrontMigrations, ...verdictMigrations],
          migrationsRun: true,
        }),
        VerdictModule.forRootAsync({
          imports: [LabConversationModule, LabQueueModule],
          inject: [DataSource, LabConversation, InProcessDeferredQueue],
          useFactory: (dataSource: DataSource, conversation: LabConversation, queue: InProcessDeferredQueue) => ({
            abilityFactory: new ConcurrentWrite(new LabAbilityFactory(dataSource)),
            evidence: new TypeOrmEvidenceRecorder(dataSource),
            evidenceQuery: new TypeOrmEvidenceQuery(dataSource),
            executionClaims: new TypeOrmExecutionClaimStore(dataSource),
            rateLimits: new TypeOrmRateLimitStore(dataSource),
            approvals: new TypeOrmApprovalReceiptStore(dataSource),
            trajectories: new TypeOrmTrajectoryStore(dataSource),
            // The budget page: the goodwill credit's spend budget and the assistant's token and cost budgets,
            // per customer (the same key the review lane uses: a customer's id, whatever session they come from).
            budgets: new TypeOrmBudgetStore(dataSource),
            modelBudgets: LAB_MODEL_BUDGETS,
            actorKey: labActorKey,
            // Every lab agent that proposes the payout has a tracker, and a session's history stays in this
            // process's label memory: both provenance behaviour changes are acknowledged (ADR 0039, 0041).
            provenance: {
              ledger: new TypeOrmProvenanceLedger(dataSource),
              unobserved: 'influenced',
              unlabelledHistory: 'untrusted',
            },
            // The "pay the bill in a file" lab reads the file through a handle: a scripted stand-in with no tools.
            quarantine: { model: quarantinedModel },
            publicMessage: 'I cannot do that for you.',
            // The real time unless the session was given a clock (tests: one that keeps each test inside its windows).
            clock: options.clock,
            // The inbox's approver stands in for an auth guard; the conversation a tool call was proposed in is
            // this session's own record, and an approver only sees conversations of their own tenant (CASL then
            // lets a customer approve only their own orders).
            approvalEndpoint: {
              approver: (context) => labApprover(context.switchToHttp().getRequest().headers['x-lab-approver']),
              requester: (_approver, toolCallId) => conversation.requesterOf(toolCallId),
              canAccessToolCall: (approver, _toolCallId, _context, requester) =>
                approver.context.tenant === requester.tenant,
            },
            // The review lane: items in this session's database, worked in process; the worker re-runs a
            // reviewed refund as the customer the storefront knows now (its ability factory re-reads the row).
            review: {
              items: new TypeOrmReviewItemStore(dataSource),
              queue,
              actorKey: labActorKey,
              rehydrate: ({ actorKey, tenant }) => {
                const customerId = (actorKey as { customerId?: unknown } | null)?.customerId;
                return typeof customerId === 'number' && tenant !== null
                  ? storefrontContext(customerId, tenant, LAB_CONVERSATION)
                  : null;
              },
            },
            reviewEndpoint: {
              reviewer: (context) => labReviewer(context.switchToHttp().getRequest().headers['x-lab-reviewer']),
            },
          }),
        }),
        LabConversationModule,
        LabQueueModule,
        VerdictLangChainModule,
        // The live lab runs its scenario through any of the three runtimes (LiveRuntimeRuns).
        VerdictAiSdkModule,
        VerdictAgentsModule,
        // The storefront's order capabilities as MCP tools: the lab user header stands in for a bearer token.
        VerdictMcpModule.forRoot({
          path: 'api/mcp',
          tools: LAB_MCP_TOOLS,
          authenticate: (request) => labMcpPrincipal(request.headers[LAB_MCP_USER_HEADER]),
        }),
      ],
      controllers: [LabController],
      providers: [
        LabSeeder,
        LabRefusals,
        LabRefusalFilter,
        StorefrontCapabilities,
        ShipmentCapabilities,
        SupportCapabilities,
        RefundCapabilities,
        CrossCustomerComparison,
        GateScenarios,
        ConfirmationScenario,
        BatchApprovalScenario,
        LabReleasePolicies,
        DestinationReleaseScenario,
        RecordsCapabilities,
        ExfiltrationChainScenario,
        WhyVerdictCases,
        EvidenceTrail,
        LabCalls,
        PayoutCapabilities,
        ReviewAgent,
        InjectedReviewScenario,
        McpSessionScenario,
        StaffRefundCapabilities,
        ReviewLaneScenario,
        AttackPackScenario,
        CarrierLabelCapabilities,
        ClaimsPanelScenario,
        GoodwillCreditCapabilities,
        BudgetPageScenario,
        BillPaymentCapabilities,
        BillReleasePolicies,
        PayBillInFileScenario,
        { provide: BillReadingQuarantinedModel, useValue: quarantinedModel },
        { provide: LAB_OPTIONS, useValue: options },
        { provide: LiveLabProvider, useValue: options.live ?? LiveLabProvider.fromEnv({}) },
        LiveLabScenarios,
        LiveRuntimeRuns,
      ],
    };
  }
}
