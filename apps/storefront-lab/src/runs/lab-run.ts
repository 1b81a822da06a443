/**
 * The lab's API shapes, shared by the Nest controllers and the web client (type-only, no imports, so the
 * browser bundle can use them as they are).
 */

/** One pipeline stage of one call, read back from `verdict_decision_records`: fingerprints and counts only. */
export interface StageView {
  readonly stage: string;
  readonly disposition: string;
  readonly reason: string;
  /** The record's non-null evidence fields (fingerprints, identity match, budget, claim, approval phase). */
  readonly evidence: Readonly<Record<string, string | number | boolean>>;
}

/** One tool call as a lab run shows it: untrusted input | model proposal | policy decision | observed side effect. */
export interface CallView {
  readonly toolCallId: string;
  /** What the call came from: the customer's request or other text the model read. */
  readonly untrustedInput: string;
  readonly proposal: { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> };
  /**
   * `executed`, or the disposition that stopped it (`deny`, `throttle`, `require_confirmation`, ...); `ran
   * unchecked` for a raw tool that Verdict is not on.
   */
  readonly outcome: string;
  /** Every stage Verdict recorded for this call, in pipeline order (empty for a path Verdict is not on). */
  readonly stages: readonly StageView[];
  /** Exactly what the model read back. */
  readonly modelSaw: string;
  /** What changed in the world, observed after the call (rows, refunds, carrier requests, uploads). */
  readonly sideEffect: string;
  /** Arguments the provenance ledger records as derived from untrusted content (provenance runs only). */
  readonly derivedArguments?: readonly ArgumentDerivation[];
}

/** The signed-in customer a lab runs as: the server builds the action context from it, never from model output. */
export interface LabActor {
  readonly customerId: number;
  readonly tenant: string;
}

/** A lab run: the calls it made, in order, and a one-line summary of the world afterwards. */
export interface LabRun {
  readonly actor: LabActor;
  readonly calls: readonly CallView[];
  readonly summary: string;
}

/** One path (naive, hand-secured, Verdict) of a comparison. */
export interface ComparisonPath {
  readonly path: 'naive' | 'manual' | 'verdict';
  /** `leaked`, `denied`, `permitted`, or what the path did (`executed twice`, `cancelled 91's order`, ...). */
  readonly outcome: string;
  /** Whether this path did what a secure application must. */
  readonly safe: boolean;
  readonly call: CallView;
}

/** One "why Verdict, not a scoped query" case, or the cross-customer comparison for one proposal. */
export interface ComparisonCaseView {
  readonly case: string;
  readonly title: string;
  /** One line: what Verdict added here that the hand-secured tool does not have. */
  readonly verdictAdded: string;
  readonly paths: readonly ComparisonPath[];
}

/** The release lab: one profile, two destinations. */
export interface ReleaseView {
  readonly destination: string;
  readonly outcome: string;
  readonly before: unknown;
  readonly payload: unknown;
  readonly reason: string;
  readonly redactedPaths: readonly string[];
  readonly evidence: Readonly<Record<string, unknown>>;
}

/** One step of the exfiltration chain with the folded trajectory state after it. */
export interface TrajectoryStepView {
  readonly call: CallView;
  /** The stored folded state after this step (unchanged when the step was refused). */
  readonly state: Readonly<Record<string, unknown>>;
}

/** An argument influence analysis found in untrusted content: its path and sources, never its value. */
export interface ArgumentDerivation {
  /** The argument path (`iban`). */
  readonly path: string;
  /** The untrusted sources it occurs in, as `kind:name` (`external:product-reviews`). */
  readonly sources: readonly string[];
}

/** One call of a provenance run, with the arguments the provenance ledger marks as derived from untrusted content. */
export interface ProvenanceCallView extends CallView {
  readonly derivedArguments: readonly ArgumentDerivation[];
}

/** The provenance lab: the customer's message, the reviews the model read, and every call it proposed. */
export interface ProvenanceRunView {
  readonly actor: LabActor;
  /** The customer's own message (trusted). */
  readonly customerMessage: string;
  /** The reviews the model read (untrusted, third-party text); the last one is the lab's editable review. */
  readonly reviews: readonly string[];
  readonly calls: readonly ProvenanceCallView[];
  readonly summary: string;
}

/** A pending approval as the inbox shows it: trusted data only, no receipt id. */
export interface PendingApprovalView {
  readonly toolCallId: string;
  readonly capability: string;
  readonly description: string | null;
  readonly reason: string;
  readonly requestedBy: string;
  readonly expiresAt: string;
}

/** The model's turn in the batch-approval lab: the batch asked, and each call's way through the pipeline. */
export interface BatchProposalView {
  readonly batchId: string;
  readonly calls: CallView[];
}

/** A batch as the signed-in approver may see it: its pending items, or why not (`not_found`, `forbidden`, `contained`). */
export type BatchReadView =
  | {
      readonly allowed: true;
      readonly batchId: string;
      readonly items: ReadonlyArray<{
        readonly toolCallId: string;
        readonly capability: string;
        readonly reason: string;
        readonly description: string | null;
        readonly arguments: { readonly orderId: number; readonly amountCents: number };
        readonly expiresAt: string;
      }>;
    }
  | { readonly allowed: false; readonly outcome: string };

/** What a batch decision did, and each call as the run resumed it (`nextBatchId`: the edited calls' new batch). */
export interface BatchDecisionView {
  readonly outcome: string;
  readonly nextBatchId: string | null;
  readonly calls: CallView[];
}

/** The answer of the guarded approval endpoint. */
export interface ApprovalAnswer {
  readonly outcome: string;
}

/** Someone who may sign in to the review queue (a stand-in for the application's staff auth guard). */
export interface LabReviewer {
  readonly id: string;
  readonly label: string;
  readonly tenant: string;
}

/** One review-stage record about an item: which phase, what happened, who recorded it. */
export interface ReviewRecordView {
  /** `review_park`, `review_decision`, `review_dispatch`, `review_execution`. */
  readonly phase: string;
  readonly outcome: string;
  readonly disposition: string;
  /** `reviewer` for a reviewer's decision, `deferred` for the worker's records. */
  readonly toolKind: string;
}

/** A review item as the review lab shows it: trusted data and its state, never the stored arguments. */
export interface ReviewItemView {
  readonly itemId: string;
  /** The lab call the item was parked from, so the page credits what the review caused to that call. */
  readonly toolCallId: string | null;
  readonly capability: string;
  readonly description: string | null;
  readonly reason: string;
  /** `pending`, `approved`, `rejected`, `executed`, `refused`. */
  readonly status: string;
  readonly decidedBy: string | null;
  readonly expiresAt: string;
  readonly history: readonly ReviewRecordView[];
}

/** The answer of the guarded review endpoint, after the in-process worker ran what the decision queued. */
export interface ReviewAnswer {
  readonly outcome: string;
  readonly item: ReviewItemView | null;
  /** What this decision caused, once the worker ran (only what happened since the decision). */
  readonly sideEffect: string;
}

/** An execution claim, in the columns of `verdict claims list`. */
export interface ClaimRow {
  readonly id: string;
  readonly capability: string;
  readonly policy: string;
  readonly status: string;
  readonly attempt: number;
  readonly claimed_at: string;
  readonly updated_at: string;
}

/**
 * What resolving a claim from the claims panel did, as `verdict claims resolve` reports it: `resolved` (from →
 * status), `force_required` (still `claimed`: its executor may be running) or `invalid_state` (already resolved).
 */
export interface ClaimResolutionView {
  readonly outcome: 'resolved' | 'force_required' | 'invalid_state';
  readonly from: string | null;
  readonly status: string;
}

/** Someone who may sign in to the approval inbox in the lab (a stand-in for the application's auth guard). */
export interface LabApprover {
  readonly id: string;
  readonly label: string;
  readonly customerId: number;
  readonly tenant: string;
}

/** What the lab session offers: who can act and approve. */
export interface LabSessionView {
  readonly actors: readonly (LabActor & { readonly label: string })[];
  readonly approvers: readonly LabApprover[];
  readonly reviewers: readonly LabReviewer[];
  /**
   * The operator CLI on this session's database: the file and the command that lists its claims; `null` when
   * the session is in memory (no other process can open it).
   */
  readonly cli: { readonly database: string; readonly command: string } | null;
}

/** One purpose's score in an evaluation run. */
export interface EvaluationScoreView {
  readonly purpose: string;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly pending: number;
}

/** The evaluation lab: one run of the storefront attack pack, scored and compared with its checked-in baseline. */
export interface EvaluationRunView {
  readonly suite: string;
  readonly generatedAt: string;
  readonly scores: readonly EvaluationScoreView[];
  readonly cases: readonly { readonly id: string; readonly purpose: string; readonly status: string }[];
  /** Whether any change against the baseline blocks (a regression, a new failure, an error, removed coverage). */
  readonly blocking: boolean;
  /** Every change against the baseline, one line each (`describeChange`). */
  readonly changes: readonly string[];
  /** The comparison as `verdict-eval compare` prints it on the console. */
  readonly rendered: string;
}

/** The live lab's configuration as the page sees it: the provider kind and model id, never a key or a URL. */
export interface LiveModeView {
  readonly configured: boolean;
  readonly provider: { readonly kind: string; readonly model: string } | null;
  /** Why the live lab is off: the configuration loader's message, which names variables, never their values. */
  readonly problem: string | null;
  /** The environment variables `verdict-eval live` and the live lab read (`VERDICT_LIVE_*`). */
  readonly variables: Readonly<Record<string, string>>;
}

/**
 * One live run: what the configured model proposed and that proposal through the naive, hand-secured and
 * Verdict paths — or that it proposed nothing, or a provider error, which is neither a pass nor a failure.
 */
export interface LiveRunView {
  readonly scenario: string;
  readonly provider: { readonly kind: string; readonly model: string };
  readonly outcome: 'proposed' | 'not_proposed' | 'provider_error';
  /** The call the comparison replays, as the model proposed it. */
  readonly proposal: { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> } | null;
  readonly comparison: ComparisonCaseView | null;
  /** The provider error class (`server_error`, `timeout`, `rate_limit`, …), as live trials record it. */
  readonly errorClass: string | null;
  /** One line on what happened. */
  readonly message: string;
}

/** One tool call the model made in a live runtime run, what Verdict decided, and what the model read back. */
export interface LiveRuntimeCallView {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** `executed`, or the decision of the public `not_executed` answer (`deny`, `require_confirmation`, …). */
  readonly decision: string;
  /** The tool's answer as the model read it: the output, or the public `not_executed` answer. */
  readonly modelRead: string;
}

/**
 * One live run of a scenario through an agent runtime (LangChain, Vercel AI SDK, OpenAI Agents): the configured
 * model drives that runtime's loop, and Verdict's tool for that runtime decides every call. A provider error is
 * neither a pass nor a failure; a model that gave no answer within the lab's turns is `no_answer`.
 */
export interface LiveRuntimeRunView {
  readonly scenario: string;
  readonly runtime: string;
  readonly provider: { readonly kind: string; readonly model: string };
  readonly outcome: 'answered' | 'no_answer' | 'provider_error';
  readonly calls: readonly LiveRuntimeCallView[];
  /** The model's final text. */
  readonly answer: string;
  readonly errorClass: string | null;
  /** One line on what happened. */
  readonly message: string;
}

/**
 * Why a guarded approval or review endpoint refused the signed-in person: an expected refusal, which the page
 * shows as Verdict working, not as a fault. The lab's own words beside the endpoint's status; the endpoint
 * itself answers only the status (it tells a caller nothing about someone else's request).
 */
export interface RefusalView {
  /** Which guarded endpoint refused: the approval inbox's or the review queue's. */
  readonly endpoint: 'approval' | 'review';
  /** The HTTP status the endpoint answered (401, 403, 404, 409). */
  readonly status: number;
  /** Who was signed in, as the picker names them. */
  readonly who: string;
  /** One sentence: which rule refused them. */
  readonly why: string;
}

/** What one user's MCP client session listed (the MCP lab). */
export interface McpListingView {
  readonly user: string;
  readonly tools: readonly { readonly name: string; readonly description: string }[];
}

/** One budget on the budget page: its limit, what the current window used and what is left. */
export interface BudgetStandingView {
  readonly name: string;
  /** `spend` (a capability's spend budget), `tokens` or `cost` (model budgets). */
  readonly measure: 'spend' | 'tokens' | 'cost';
  /** The unit of `limit`, `used` and `remaining` (`cents`, `tokens`, `millicents`). */
  readonly unit: string;
  /** Whose budget it is: `actor`, `tenant` or `conversation`. */
  readonly per: string;
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** When the window ends (ISO 8601). */
  readonly resetAt: string;
  /** What happens to a call that would pass the limit. */
  readonly whenExceeded: string;
}

/** One question to the lab assistant under its model budgets. */
export interface AssistantRunView {
  readonly question: string;
  /** `answered`, or `stopped`: a model budget had no room, and the model was not called. */
  readonly outcome: 'answered' | 'stopped';
  readonly answer: string | null;
  /** The tokens reserved before the call: the input estimate plus the model's maximum output. */
  readonly reservedTokens: number;
  /** The tokens the provider reported (committed; the rest of the reservation was released), `null` when stopped. */
  readonly usedTokens: number | null;
  /** How often the model was called (0 when the budget stopped the run first). */
  readonly modelCalls: number;
  /** The typed error that ended a stopped run (`VERDICT_MODEL_BUDGET_EXCEEDED`) and its budget, else `null`. */
  readonly stoppedBy: { readonly code: string; readonly budget: string } | null;
}

/** The budget page: every budget's standing for the actor, and the run that changed it. */
export interface BudgetPageView {
  readonly actor: LabActor;
  readonly budgets: readonly BudgetStandingView[];
  /** Goodwill credits through the spend-budgeted capability, when that was the run. */
  readonly credits: LabRun | null;
  /** Questions to the assistant under the model budgets, when that was the run. */
  readonly assistant: readonly AssistantRunView[] | null;
}

/** One confirmation the customer was asked for in the "pay the bill in a file" lab, and what they decided. */
export interface BillConfirmationView {
  readonly toolCallId: string;
  /** The payment the customer was asked to approve. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Why Verdict asked (the provenance stage's reason: argument paths and sources, never values). */
  readonly reason: string;
  /** The untrusted text released to the customer's approval screen; `passage`: the source passage of an extracted value. */
  readonly shown: readonly { readonly text: string; readonly passage: boolean }[];
  readonly decision: 'approved' | 'rejected';
  /** The customer's decision, in words. */
  readonly why: string;
}

/** One tool call of a "pay the bill in a file" run. */
export interface BillCallView {
  readonly toolCallId: string;
  /** Whether the deciding model made this call because an instruction in the file asked for it. */
  readonly obeyedInjection: boolean;
  readonly proposal: { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> };
  /** `executed`, `confirmed by the customer, executed`, `rejected by the customer`, or the disposition that stopped it. */
  readonly outcome: string;
  /** Exactly what the deciding model read back (a handle, with quarantine). */
  readonly modelSaw: string;
}

/** One run of the lab assistant on the bill: without or with quarantine. */
export interface BillRunView {
  readonly mode: 'without quarantine' | 'with quarantine';
  readonly calls: readonly BillCallView[];
  /** Every message the deciding model was given, joined: with quarantine, no line of the file. */
  readonly decidingModelInput: string;
  readonly decidingModelReadTheFile: boolean;
  /** Calls to the quarantined model (one per extraction). */
  readonly extractions: number;
  readonly confirmations: readonly BillConfirmationView[];
  readonly payments: readonly { readonly payee: string; readonly iban: string; readonly amountCents: number }[];
  /** What happened, in words. */
  readonly summary: string;
}

/** The "pay the bill in a file" lab: the same request and file, without and with quarantine. */
export interface PayBillLabView {
  readonly customerMessage: string;
  readonly file: string;
  /** The bill the customer expects to pay (the repair shop's). */
  readonly expected: { readonly payee: string; readonly iban: string; readonly amountCents: number };
  readonly without: BillRunView;
  readonly with: BillRunView;
}
