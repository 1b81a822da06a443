import type { DataSourceOptions } from 'typeorm';
import type {
  ApprovalReceipt,
  BudgetReservationAnswer,
  BudgetReservationRequest,
  Effect,
  KeptContent,
  ReceiptCheck,
  ReceiptDecision,
  ReceiptIssue,
  ReceiptKey,
  ReceiptTransition,
  ReceiptBatchDecision,
  ReceiptBatchTransition,
  TrajectoryOutcome,
} from '@verdict/nestjs';

/** What a gate worker opens: serializable DataSource options; the worker adds Verdict's entities itself. */
export interface GateWorkerInit {
  readonly dataSource: DataSourceOptions;
}

/** One execution claim admission; the worker draws its own unpredictable candidate id. */
export interface AdmitRequest {
  readonly gate: 'admit';
  readonly capability: string;
  readonly policy: string;
  readonly bindingFingerprint: string;
  readonly now: Date;
}

/** `times` rate-limit consumptions of one bucket, one after another. */
export interface ConsumeRequest {
  readonly gate: 'consume';
  readonly bucketFingerprint: string;
  readonly windowStart: Date;
  readonly windowSeconds: number;
  readonly limit: number;
  readonly times: number;
}

/** `times` spend-budget reservations of `amount` in one window, one after another; `commit` settles each admitted one. */
export interface ReserveBudgetRequest extends BudgetReservationRequest {
  readonly gate: 'reserveBudget';
  readonly times: number;
  /** What happens to each reservation once made: committed (as after an executor's result) or released. */
  readonly settle: 'commit' | 'release';
}

/** One consumption of the approval receipt for `key` at `now`. */
export interface ReceiptConsumeRequest extends ReceiptKey {
  readonly gate: 'consumeReceipt';
  readonly now: Date;
}

/** One issue of an approval receipt, with or without pending-receipt limits. */
export interface ReceiptIssueRequest extends ReceiptIssue {
  readonly gate: 'issueReceipt';
}

/** One approval or rejection of a pending approval receipt. */
export interface ReceiptDecisionRequest extends ReceiptDecision {
  readonly gate: 'decideReceipt';
  readonly decision: 'approve' | 'reject';
}

/** One decision of a whole approval batch (ADR 0102). */
export interface ReceiptBatchDecisionRequest extends ReceiptBatchDecision {
  readonly gate: 'decideReceiptBatch';
}

/** `times` advances of one trajectory under `stateModel` (compiled by the worker), each folding `effect`. */
export interface TrajectoryAdvanceRequest {
  readonly gate: 'advanceTrajectory';
  readonly trajectoryFingerprint: string;
  readonly stateModel: unknown;
  readonly effect: Effect;
  readonly times: number;
  readonly now: Date;
}

/** One write of the provenance content store (ADR 0042): keep `texts` at `now`, forget them, or prune before `now`. */
export interface ContentsWriteRequest {
  readonly gate: 'writeContents';
  readonly write: 'keep' | 'forget' | 'prune';
  readonly texts: readonly KeptContent[];
  readonly now: Date;
}

export type GateRequest =
  | AdmitRequest
  | ContentsWriteRequest
  | ConsumeRequest
  | ReserveBudgetRequest
  | ReceiptIssueRequest
  | ReceiptConsumeRequest
  | ReceiptDecisionRequest
  | ReceiptBatchDecisionRequest
  | TrajectoryAdvanceRequest;

/** Many gate calls behind one start barrier, made one after another in the order given; each answered on its own. */
export interface BatchRequest {
  readonly gate: 'batch';
  readonly requests: readonly GateRequest[];
}

/** A worker's admission: the store's answer, and the candidate id the worker offered. */
export interface AdmitReply {
  readonly candidateId: string;
  readonly admitted: boolean;
  readonly claimId: string;
  readonly attempt: number;
  /** The refusing claim's status; absent when admitted. */
  readonly status?: string;
}

/** A worker's consumptions, in order. */
export interface ConsumeReply {
  readonly consumptions: ReadonlyArray<{
    readonly allowed: boolean;
    readonly count: number;
    readonly remaining: number;
    readonly resetAt: Date;
  }>;
}

/** A worker's reservations, in order: the store's answers, unchanged. */
export interface ReserveBudgetReply {
  readonly reservations: readonly BudgetReservationAnswer[];
}

/** A worker's receipt issue: the store's answer, `null` when a cap refused it. */
export interface ReceiptIssueReply {
  readonly receipt: ApprovalReceipt | null;
}

/** A worker's receipt consumption: the store's answer, unchanged. */
export type ReceiptConsumeReply = ReceiptCheck;

/** A worker's approval or rejection: the store's answer, and which of the two the worker asked for. */
export type ReceiptDecisionReply = ReceiptTransition & { readonly decision: 'approve' | 'reject' };

/** A worker's batch decision: the store's answer, unchanged. */
export type ReceiptBatchDecisionReply = ReceiptBatchTransition;

/** A worker's trajectory advances, in order: the store's answers, unchanged. */
export interface TrajectoryAdvanceReply {
  readonly outcomes: readonly TrajectoryOutcome[];
}

/** One call of a batch: the store's reply, or what it threw (`typed`: a `VerdictError`). */
export type BatchOutcome =
  | { readonly reply: GateReply }
  | { readonly error: { readonly name: string; readonly message: string; readonly typed: boolean } };

/** A worker's batch: one outcome per request, in order. */
export interface BatchReply {
  readonly outcomes: readonly BatchOutcome[];
}

/** A worker's content-store write: how many texts a prune deleted (0 for a keep or a forget). */
export interface ContentsWriteReply {
  readonly pruned: number;
}

export type GateReply =
  | AdmitReply
  | ContentsWriteReply
  | ConsumeReply
  | ReserveBudgetReply
  | ReceiptIssueReply
  | ReceiptConsumeReply
  | ReceiptDecisionReply
  | ReceiptBatchDecisionReply
  | TrajectoryAdvanceReply;
