import {
  Body,
  Controller,
  Get,
  Header,
  Headers,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Query,
  UseFilters,
} from '@nestjs/common';
import {
  ApprovalEndpoint,
  ApprovalRequest,
  ApprovalService,
  ReviewEndpoint,
  ReviewRequest,
  ReviewService,
  type VerifiedApprovalRequest,
  type VerifiedReviewRequest,
} from '@verdict/nestjs';
import { ExecutionClaimEntity } from '@verdict/nestjs/typeorm';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { ConfirmationScenario } from './approvals/confirmation.scenario.js';
import { BatchApprovalScenario } from './approvals/batch-approval.scenario.js';
import { CrossCustomerComparison } from './comparison/cross-customer.comparison.js';
import { ExfiltrationChainScenario } from './forbidden-states/exfiltration-chain.scenario.js';
import { GateScenarios } from './gates/gate-scenarios.js';
import { BudgetPageScenario } from './budgets/budget-page.scenario.js';
import { ClaimsPanelScenario } from './claims/claims-panel.scenario.js';
import { AttackPackScenario } from './evaluation/attack-pack.scenario.js';
import { LiveLabProvider } from './live/live-lab-provider.js';
import { LiveLabScenarios } from './live/live-lab.scenarios.js';
import { LiveRuntimeRuns } from './live/live-runtime-runs.js';
import { LIVE_RUNTIMES, type LiveRuntime } from './live/live-runtime.js';
import { PayBillInFileScenario } from './quarantine/pay-bill-in-file.scenario.js';
import { InjectedReviewScenario } from './provenance/injected-review.scenario.js';
import { McpSessionScenario } from './mcp/mcp-session.scenario.js';
import { DestinationReleaseScenario } from './releases/destination-release.scenario.js';
import type {
  ApprovalAnswer,
  ClaimRow,
  LabSessionView,
  LiveModeView,
  McpListingView,
  ReviewAnswer,
} from './runs/lab-run.js';
import { LAB_REVIEWERS } from './review-lane/lab-reviewers.js';
import { ReviewLaneScenario } from './review-lane/review-lane.scenario.js';
import { LAB_OPTIONS, type LabOptions } from './lab-options.js';
import { claimsListCommand } from './session/session-databases.js';
import { LabRefusalFilter } from './refusals/lab-refusal.filter.js';
import { LAB_ACTORS, LAB_APPROVERS, labActorSchema, parseBody } from './session/lab-actors.js';
import { WHY_VERDICT_CASES, WhyVerdictCases } from './why-verdict/why-verdict.cases.js';

const orderId = z.number().int().positive().max(1_000_000_000);
const withActor = <T extends z.ZodRawShape>(shape: T) => z.object({ actor: labActorSchema, ...shape });
const schemas = {
  mcpListings: z.object({ users: z.array(z.string().max(40)).length(2) }),
  crossCustomer: withActor({ orderId, request: z.string().max(500) }),
  budget: withActor({ orderId, count: z.number().int().min(1).max(5) }),
  budgetStanding: z.object({ customerId: z.coerce.number().int(), tenant: z.string() }).pipe(labActorSchema),
  goodwill: withActor({
    orderId,
    amountCents: z.number().int().positive().max(100_000),
    count: z.number().int().min(1).max(5),
  }),
  assistant: withActor({ question: z.string().trim().min(1).max(500), count: z.number().int().min(1).max(10) }),
  duplicate: withActor({ orderId }),
  release: withActor({}),
  chain: withActor({ externalHost: z.string().min(1).max(253), recipient: z.string().min(3).max(254) }),
  refund: withActor({ orderId, amountCents: z.number().int().positive().max(10_000_000) }),
  resume: z.object({ orderId, amountCents: z.number().int().positive().max(10_000_000) }),
  batchRefunds: withActor({
    refunds: z
      .array(z.object({ orderId, amountCents: z.number().int().positive().max(10_000_000) }))
      .min(2)
      .max(5),
  }),
  batchDecisions: z.object({
    decisions: z
      .array(
        z.union([
          z.object({ toolCallId: z.string().max(100), decision: z.enum(['approve', 'reject']) }).strict(),
          z.object({
            toolCallId: z.string().max(100),
            decision: z.literal('edit'),
            arguments: z.object({ orderId, amountCents: z.number().int().positive().max(10_000_000) }),
          }),
        ]),
      )
      .max(10),
  }),
  whyVerdict: z.enum(WHY_VERDICT_CASES),
  label: withActor({ orderId }),
  resolveClaim: z.object({
    resolution: z.enum(['completed', 'retryable']),
    by: z.string().trim().min(1).max(200),
    reason: z.string().trim().min(1).max(500),
    force: z.boolean().default(false),
  }),
  staffRefund: withActor({ orderId, amountCents: z.number().int().positive().max(10_000_000) }),
  provenance: withActor({
    orderId,
    amountCents: z.number().int().positive().max(10_000_000),
    review: z.string().max(2000),
    ownIban: z.string().max(64),
  }),
  payBill: withActor({ file: z.string().max(2000), quarantinedModelMisled: z.boolean().default(false) }),
  liveCrossCustomer: withActor({ request: z.string().trim().min(1).max(500) }),
  liveRuntimeCrossCustomer: withActor({
    request: z.string().trim().min(1).max(500),
    runtime: z.enum(LIVE_RUNTIMES as [LiveRuntime, ...LiveRuntime[]]),
  }),
  liveInjectedReview: withActor({
    orderId,
    amountCents: z.number().int().positive().max(10_000_000),
    review: z.string().max(2000),
  }),
};

/**
 * The lab session's JSON API. Every lab run and every approval is a POST; GETs only read. Each browser
 * session has its own instance of this application (and database), so nothing here is shared between users.
 */
@Controller('api')
export class LabController {
  constructor(
    private readonly crossCustomer: CrossCustomerComparison,
    private readonly gates: GateScenarios,
    private readonly confirmation: ConfirmationScenario,
    private readonly batchApproval: BatchApprovalScenario,
    private readonly destinationRelease: DestinationReleaseScenario,
    private readonly chain: ExfiltrationChainScenario,
    private readonly whyVerdict: WhyVerdictCases,
    private readonly injectedReview: InjectedReviewScenario,
    private readonly approvals: ApprovalService,
    private readonly dataSource: DataSource,
    private readonly reviewLane: ReviewLaneScenario,
    private readonly reviews: ReviewService,
    private readonly attackPack: AttackPackScenario,
    private readonly claimsPanel: ClaimsPanelScenario,
    private readonly live: LiveLabProvider,
    private readonly liveScenarios: LiveLabScenarios,
    private readonly liveRuntimeRuns: LiveRuntimeRuns,
    private readonly mcpSession: McpSessionScenario,
    private readonly budgets: BudgetPageScenario,
    private readonly payBill: PayBillInFileScenario,
    @Inject(LAB_OPTIONS) private readonly options: LabOptions,
  ) {}

  /** Who can act and who can approve in this lab. */
  @Get('session')
  session(): LabSessionView {
    const { database } = this.options;
    const cli = database === ':memory:' ? null : { database, command: claimsListCommand(database) };
    return { actors: LAB_ACTORS, approvers: LAB_APPROVERS, reviewers: LAB_REVIEWERS, cli };
  }

  /** An MCP client session lists the tools as each of two lab users (`LAB_REVIEWERS` ids). */
  @Post('labs/mcp/listings')
  mcpListings(@Body() body: unknown): Promise<McpListingView[]> {
    return this.mcpSession.listAs(parseBody(schemas.mcpListings, body).users);
  }

  /** One proposed `lookup_order` through the naive, the hand-secured and the Verdict tool. */
  @Post('labs/cross-customer/runs')
  @HttpCode(200)
  runCrossCustomer(@Body() body: unknown) {
    return this.crossCustomer.run(parseBody(schemas.crossCustomer, body));
  }

  /** `count` owned shipment refreshes against a budget of two per hour. */
  @Post('labs/budget/runs')
  @HttpCode(200)
  runBudget(@Body() body: unknown) {
    const { actor, orderId, count } = parseBody(schemas.budget, body);
    return this.gates.permissionIsNotABudget(actor, orderId, count);
  }

  /** Where the actor's spend and model budgets stand (`?customerId=72&tenant=acme`). */
  @Get('labs/budgets')
  budgetStanding(@Query() query: unknown) {
    return this.budgets.view(parseBody(schemas.budgetStanding, query));
  }

  /** `count` goodwill credits against the capability's spend budget (€20 per customer per day). */
  @Post('labs/budgets/credits')
  @HttpCode(200)
  runGoodwillCredits(@Body() body: unknown) {
    const { actor, orderId, amountCents, count } = parseBody(schemas.goodwill, body);
    return this.budgets.grantCredit(actor, orderId, amountCents, count);
  }

  /** `count` questions to the lab assistant against its token and cost budgets. */
  @Post('labs/budgets/assistant')
  @HttpCode(200)
  runAssistant(@Body() body: unknown) {
    const { actor, question, count } = parseBody(schemas.assistant, body);
    return this.budgets.askAssistant(actor, question, count);
  }

  /** One escalation delivered under two tool-call ids. */
  @Post('labs/duplicate-delivery/runs')
  @HttpCode(200)
  runDuplicateDelivery(@Body() body: unknown) {
    const { actor, orderId } = parseBody(schemas.duplicate, body);
    return this.gates.newToolCallIdIsNotANewOperation(actor, orderId);
  }

  /** The actor's profile released to `ollama@local-machine` and to `ollama@remote-endpoint`. */
  @Post('labs/release/runs')
  @HttpCode(200)
  runRelease(@Body() body: unknown) {
    return this.destinationRelease.run(parseBody(schemas.release, body).actor);
  }

  /** The records exfiltration chain, step by step, with the folded trajectory state after each step. */
  @Post('labs/forbidden-states/runs')
  @HttpCode(200)
  runForbiddenStates(@Body() body: unknown) {
    return this.chain.run(parseBody(schemas.chain, body));
  }

  /** One "why Verdict, not a scoped query" case: the hand-secured path and the Verdict path. */
  @Post('labs/why-verdict/:case/runs')
  @HttpCode(200)
  runWhyVerdict(@Param('case') which: string) {
    return this.whyVerdict.run(parseBody(schemas.whyVerdict, which));
  }

  /** The assistant pays the bill in an uploaded file, without and then with quarantine (the file may be injected). */
  @Post('labs/quarantine/runs')
  @HttpCode(200)
  runPayBill(@Body() body: unknown) {
    return this.payBill.run(parseBody(schemas.payBill, body));
  }

  /** The model reads the order's reviews (one may be injected) and proposes refunds to bank accounts. */
  @Post('labs/provenance/runs')
  @HttpCode(200)
  runProvenance(@Body() body: unknown) {
    return this.injectedReview.run(parseBody(schemas.provenance, body));
  }

  /** Whether the live lab has a provider (`VERDICT_LIVE_*`): its kind and model id, or what to set. Never a key. */
  @Get('labs/live')
  liveMode(): LiveModeView {
    return this.live.view();
  }

  /** The configured model proposes `lookup_order` for the customer's request; the proposal goes through the three paths. */
  @Post('labs/live/cross-customer/runs')
  @HttpCode(200)
  runLiveCrossCustomer(@Body() body: unknown) {
    return this.liveScenarios.runCrossCustomer(parseBody(schemas.liveCrossCustomer, body));
  }

  /**
   * The customer's request through the chosen agent runtime (`langchain`, `ai-sdk`, `openai-agents`): the configured
   * model drives that runtime's loop and Verdict's tool for it decides every `lookup_order` call.
   */
  @Post('labs/live/cross-customer/runtime-runs')
  @HttpCode(200)
  runLiveRuntimeCrossCustomer(@Body() body: unknown) {
    return this.liveRuntimeRuns.runCrossCustomer(parseBody(schemas.liveRuntimeCrossCustomer, body));
  }

  /** The configured model reads the reviews (one may be injected) and proposes a refund; the proposal goes through the three paths. */
  @Post('labs/live/injected-review/runs')
  @HttpCode(200)
  runLiveInjectedReview(@Body() body: unknown) {
    return this.liveScenarios.runInjectedReview(parseBody(schemas.liveInjectedReview, body));
  }

  /** The model proposes a refund: Verdict asks for confirmation and the inbox gets a pending approval. */
  @Post('labs/confirmation/proposals')
  @HttpCode(200)
  proposeRefund(@Body() body: unknown) {
    return this.confirmation.propose(parseBody(schemas.refund, body));
  }

  /** The proposed refund resumed with an explicit approval, with these (possibly changed) arguments. */
  @Post('labs/confirmation/proposals/:toolCallId/resume')
  @HttpCode(200)
  resumeRefund(@Param('toolCallId') toolCallId: string, @Body() body: unknown) {
    return this.confirmation.resume(toolCallId, parseBody(schemas.resume, body));
  }

  /** The model proposes several refunds in one turn: each asks for confirmation, in one batch. */
  @Post('labs/batch-approval/proposals')
  @HttpCode(200)
  proposeBatch(@Body() body: unknown) {
    return this.batchApproval.propose(parseBody(schemas.batchRefunds, body));
  }

  /** The batch, for the signed-in approver (`x-lab-approver`): every pending item, or why not. */
  @Get('approvals/batches/:batchId')
  readBatch(@Param('batchId') batchId: string, @Headers('x-lab-approver') approver: string | undefined) {
    return this.batchApproval.read(batchId, approver);
  }

  /** The signed-in approver decides every item of the batch at once; the calls then resume. */
  @Post('approvals/batches/:batchId/decisions')
  @HttpCode(200)
  decideBatch(
    @Param('batchId') batchId: string,
    @Headers('x-lab-approver') approver: string | undefined,
    @Body() body: unknown,
  ) {
    return this.batchApproval.decide(batchId, parseBody(schemas.batchDecisions, body).decisions, approver);
  }

  /** The approval inbox: pending approvals this session's conversation asked for. */
  @Get('approvals')
  inbox() {
    return this.confirmation.inbox();
  }

  /** The signed-in approver approves: the guard found the receipt server-side; its id never comes from the request. */
  @Post('approvals/:toolCallId/approve')
  @HttpCode(200)
  @ApprovalEndpoint()
  @UseFilters(LabRefusalFilter)
  async approve(
    @ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest,
  ): Promise<ApprovalAnswer> {
    // Both parties: a kill switch on the approver, the requester or their tenant refuses the approval (`contained`).
    const parties = { approver: approver.context, requester };
    const { outcome } = await this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id, parties);
    return { outcome };
  }

  /** The signed-in approver rejects: the call will never execute. */
  @Post('approvals/:toolCallId/reject')
  @HttpCode(200)
  @ApprovalEndpoint()
  @UseFilters(LabRefusalFilter)
  async reject(
    @ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest,
  ): Promise<ApprovalAnswer> {
    const parties = { approver: approver.context, requester };
    const { outcome } = await this.approvals.reject(challenge.receiptId, challenge.toolCallId, approver.id, parties);
    return { outcome };
  }

  /** The model proposes a refund above the threshold: Verdict parks it for staff review. */
  @Post('labs/review-lane/proposals')
  @HttpCode(200)
  proposeStaffRefund(@Body() body: unknown) {
    return this.reviewLane.propose(parseBody(schemas.staffRefund, body));
  }

  /** This session's review items with their states and the review-stage records about each. */
  @Get('reviews')
  reviewItems() {
    return this.reviewLane.items();
  }

  /** The signed-in staff member approves; the in-process worker then runs the refund as the customer. */
  @Post('reviews/:itemId/approve')
  @HttpCode(200)
  @ReviewEndpoint()
  @UseFilters(LabRefusalFilter)
  async approveReview(@ReviewRequest() { item, reviewer }: VerifiedReviewRequest): Promise<ReviewAnswer> {
    return this.reviewLane.answer(() => this.reviews.approve(item.itemId, reviewer));
  }

  /** The signed-in staff member rejects: the refund never runs. */
  @Post('reviews/:itemId/reject')
  @HttpCode(200)
  @ReviewEndpoint()
  @UseFilters(LabRefusalFilter)
  async rejectReview(@ReviewRequest() { item, reviewer }: VerifiedReviewRequest): Promise<ReviewAnswer> {
    return this.reviewLane.answer(() => this.reviews.reject(item.itemId, reviewer));
  }

  /** Runs the storefront attack pack: scores per purpose and the comparison with the checked-in baseline. */
  @Post('labs/evaluation/runs')
  @HttpCode(200)
  runEvaluation() {
    return this.attackPack.run();
  }

  /** The last evaluation run's report, as `verdict-eval run --out` writes it (404 before the first run). */
  @Get('labs/evaluation/report')
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('content-disposition', 'attachment; filename="storefront-attack-pack.report.json"')
  evaluationReport(): string {
    const report = this.attackPack.report();
    if (report === null) throw new NotFoundException('Run the attack pack first.');
    return report;
  }

  /** Books a shipping label: the lab's carrier times out on the first request, leaving the claim indeterminate. */
  @Post('labs/claims/labels')
  @HttpCode(200)
  sendLabel(@Body() body: unknown) {
    const { actor, orderId } = parseBody(schemas.label, body);
    return this.claimsPanel.sendLabel(actor, orderId);
  }

  /** `verdict claims resolve <id> completed|retryable --by --reason [--force]`, from the claims panel. */
  @Post('claims/:claimId/resolve')
  @HttpCode(200)
  resolveClaim(@Param('claimId') claimId: string, @Body() body: unknown) {
    return this.claimsPanel.resolve(claimId, parseBody(schemas.resolveClaim, body));
  }

  /** Execution claims in the columns of `verdict claims list` (which shows only the unresolved ones). */
  @Get('claims')
  async claims(): Promise<ClaimRow[]> {
    const claims = await this.dataSource.getRepository(ExecutionClaimEntity).find({ order: { claimedAt: 'ASC' } });
    return claims.map((claim) => ({
      id: claim.id,
      capability: claim.capability,
      policy: claim.policy,
      status: claim.status,
      attempt: claim.attempt,
      claimed_at: claim.claimedAt.toISOString(),
      updated_at: claim.updatedAt.toISOString(),
    }));
  }
}
