import type { DataSourceOptions } from 'typeorm';
import type { DeferredJobOutcome, ReviewOutcome } from '@verdict/nestjs';

/** What a review-lane worker process boots: Verdict on the test database, with BullMQ when `redis` is set. */
export interface ReviewLaneWorkerInit {
  readonly dataSource: DataSourceOptions;
  /** The table executed refunds are written to (`claim_id`, `amount`), created by the test. */
  readonly ledgerTable: string;
  /** BullMQ on this Redis and key prefix; `null`: an in-process queue nobody works. */
  readonly redis: { readonly url: string; readonly prefix: string; readonly lockDurationMs: number } | null;
  /** The executor blocks forever once entered (to be killed mid-executor). */
  readonly blockExecutor: boolean;
}

/** Proposes a refund as `customer:72` (one tool call each) and answers the parked item's id. */
export interface ProposeRequest {
  readonly kind: 'propose';
  readonly toolCallId: string;
  readonly amount: number;
}

/** A reviewer's approve or reject of one item through `ReviewService`. */
export interface DecideRequest {
  readonly kind: 'decide';
  readonly itemId: string;
  readonly verdict: 'approve' | 'reject';
  readonly reviewerId: string;
}

/** Starts this process's BullMQ worker on the deferred queue. */
export interface StartWorkingRequest {
  readonly kind: 'startWorking';
}

/** Resolves once this process's executor has been entered. */
export interface AwaitExecutorRequest {
  readonly kind: 'awaitExecutor';
}

/** How many times this process entered the executor, and the outcomes of the jobs it finished. */
export interface ReportRequest {
  readonly kind: 'report';
}

export type ReviewLaneRequest =
  ProposeRequest | DecideRequest | StartWorkingRequest | AwaitExecutorRequest | ReportRequest;

export interface ProposeReply {
  readonly itemId: string;
}

export interface DecideReply {
  readonly outcome: ReviewOutcome;
}

export interface ReportReply {
  readonly executorEntries: number;
  readonly outcomes: readonly DeferredJobOutcome[];
}

export type ReviewLaneReply = ProposeReply | DecideReply | ReportReply | { readonly ok: true };
