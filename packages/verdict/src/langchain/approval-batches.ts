import { AIMessage, type BaseMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { interrupt } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';
import { createMiddleware } from 'langchain';
import { z } from 'zod';
import { approvalBatchId } from '../approvals/approval-batch-id.js';
import { ApprovalBatchService } from '../approvals/approval-batch.service.js';
import type { DecidedBatchItem } from '../approvals/approval-batch.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { Disposition } from '../decisions/disposition.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { readNotExecutedMessage } from '../public-answer.js';
import { approvalBatchInterrupt, batchResumeItems } from './approval-batch-resume.js';
import { APPROVAL_BATCH_STATE_KEY, type ApprovalBatchState, approvalBatchStateSchema } from './approval-batch-state.js';
import { textOf } from './message-text.js';
import { threadOf } from './thread-of.js';

type AgentState = { messages: BaseMessage[]; [APPROVAL_BATCH_STATE_KEY]?: ApprovalBatchState | null };

/**
 * Batch approvals for `createAgent` (docs/approvals.md "Batch approvals", ADR 0102). With its middleware, a model
 * turn that proposes several calls is asked as one batch: each bound tool runs its call through the pipeline as
 * usual, and a call that needs confirmation gets its receipt in the turn's batch instead of pausing the run on its
 * own; before the model runs again, the run pauses once with an {@link ApprovalBatchInterrupt} of every pending item.
 * Resumed with `resumeApprovalBatch(outcome)`, approved calls run (each once), rejected ones answer the model with
 * the public refusal, and edited ones are proposed again with the edited arguments: the whole pipeline, and if they
 * need confirmation again, a batch of their own. A turn of one call pauses as before (`ApprovalInterrupt`).
 *
 * @example
 * const agent = createAgent({ model, tools, checkpointer, middleware: [applicationFaultMiddleware(), approvalBatches.middleware()] });
 */
@Injectable()
export class ApprovalBatches {
  constructor(
    private readonly batches: ApprovalBatchService,
    private readonly contexts: ActionContextStore,
  ) {}

  /** The agent middleware. Needs a checkpointer (the run pauses) and the requester's action context around each run. */
  middleware() {
    return createMiddleware({
      name: 'VerdictApprovalBatches',
      stateSchema: z.object({ [APPROVAL_BATCH_STATE_KEY]: approvalBatchStateSchema.nullable().optional() }),
      afterModel: async (state, runtime) => planTurn(state as AgentState, threadOf(runtime as never)),
      beforeModel: {
        canJumpTo: ['tools'],
        hook: async (state, runtime) => this.ask(state as AgentState, threadOf(runtime as never)),
      },
    });
  }

  /** Before the next model call: pause once for the turn's pending items, then apply the approver's decisions. */
  private async ask(state: AgentState, thread: string | undefined) {
    const plan = state[APPROVAL_BATCH_STATE_KEY];
    if (plan == null) return undefined;
    const asked = askedCalls(state.messages, plan);
    if (asked.length === 0) return { [APPROVAL_BATCH_STATE_KEY]: null };
    const requester = this.contexts.require();
    const batch = await this.batches.pending(plan.batchId, requester);
    // Nothing left pending and nothing decided: the receipts expired or went elsewhere; the model reads the answers.
    if (batch === null && !(await this.batches.isDecided(plan.batchId, requester)))
      return { [APPROVAL_BATCH_STATE_KEY]: null };
    const resume = interrupt(
      batch === null
        ? { type: 'verdict.approval_batch_required', batchId: plan.batchId, items: [] }
        : approvalBatchInterrupt(batch),
    );
    const decided = batchResumeItems(resume, plan.batchId);
    // Not this batch's decisions: nothing runs, and the model reads the calls' `require_confirmation` answers.
    if (decided === null) return { [APPROVAL_BATCH_STATE_KEY]: null };
    return this.applied(state.messages, plan, asked, decided, thread);
  }

  /** The state update that runs the decided calls again: approved, rejected (to answer the refusal) and edited. */
  private applied(
    messages: BaseMessage[],
    plan: ApprovalBatchState,
    asked: readonly ToolMessage[],
    decided: readonly DecidedBatchItem[],
    thread: string | undefined,
  ) {
    const inBatch = decided.filter((item) => asked.some((m) => m.tool_call_id === item.toolCallId));
    const edits = new Map(inBatch.filter((i) => i.decision === 'edit').map((i) => [i.toolCallId, i.arguments]));
    const turn = messages.find((m): m is AIMessage => AIMessage.isInstance(m) && m.id === plan.message);
    const removed = asked
      .filter((m) => inBatch.some((item) => item.toolCallId === m.tool_call_id))
      .map((m) => new RemoveMessage({ id: m.id! }));
    const updates: BaseMessage[] = [...removed];
    if (turn !== undefined && edits.size > 0)
      updates.push(
        new AIMessage({
          id: turn.id,
          content: turn.content,
          tool_calls: (turn.tool_calls ?? []).map((call) =>
            call.id !== undefined && edits.has(call.id) ? { ...call, args: edits.get(call.id)! } : call,
          ),
        }),
      );
    const round = plan.round + 1;
    const next: ApprovalBatchState = {
      batchId: approvalBatchId({ conversation: thread ?? null, message: plan.message, round }),
      round,
      message: plan.message,
      deferred: [...edits.keys()],
      approved: inBatch.filter((i) => i.decision === 'approve').map((i) => i.toolCallId),
    };
    return { messages: updates, [APPROVAL_BATCH_STATE_KEY]: next, jumpTo: 'tools' as const };
  }
}

/** After the model: a turn of several calls is asked as one batch; any other turn has none. */
function planTurn(state: AgentState, thread: string | undefined) {
  const turn = state.messages.at(-1);
  const calls = AIMessage.isInstance(turn) ? (turn.tool_calls ?? []) : [];
  const ids = calls.map((call) => call.id).filter((id): id is string => typeof id === 'string');
  if (ids.length < 2) return { [APPROVAL_BATCH_STATE_KEY]: null };
  // The messages reducer gives every message an id; a message without one is known by its calls.
  const message = turn!.id ?? fingerprint(calls.map(({ id, name, args }) => ({ id: id ?? null, name, args })));
  const plan: ApprovalBatchState = {
    batchId: approvalBatchId({ conversation: thread ?? null, message, round: 0 }),
    round: 0,
    message,
    deferred: ids,
    approved: [],
  };
  return { [APPROVAL_BATCH_STATE_KEY]: plan };
}

/** The answers of the batch's deferred calls that a bound tool left for the approver (`require_confirmation`). */
function askedCalls(messages: readonly BaseMessage[], plan: ApprovalBatchState): ToolMessage[] {
  return messages.filter(
    (m): m is ToolMessage =>
      ToolMessage.isInstance(m) &&
      plan.deferred.includes(m.tool_call_id) &&
      readNotExecutedMessage(textOf(m))?.decision === Disposition.RequireConfirmation,
  );
}
