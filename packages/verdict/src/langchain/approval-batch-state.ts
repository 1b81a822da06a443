import { z } from 'zod';

/**
 * What the approval-batch middleware keeps in the agent's state for the turn being asked (ADR 0102): the batch id,
 * its round, the model message that proposed the calls, which of its calls a bound tool leaves for the batch
 * (`deferred`) and which the approver approved (`approved`). Written only by the middleware; read by bound tools.
 */
export const approvalBatchStateSchema = z.object({
  batchId: z.string(),
  round: z.number().int().nonnegative(),
  message: z.string(),
  deferred: z.array(z.string()),
  approved: z.array(z.string()),
});

/** See {@link approvalBatchStateSchema}. */
export type ApprovalBatchState = z.infer<typeof approvalBatchStateSchema>;

/** The agent-state key the middleware keeps the batch under. */
export const APPROVAL_BATCH_STATE_KEY = 'verdictApprovalBatch';

/**
 * The batch state of the agent run a tool is invoked in: LangGraph hands each tool task its input (the agent's
 * state) on the config's scratchpad. `null` outside a run with the middleware, or when the turn has no batch.
 */
export function approvalBatchStateOf(configurable: unknown): ApprovalBatchState | null {
  const scratchpad = (configurable as { __pregel_scratchpad?: { currentTaskInput?: unknown } } | undefined)
    ?.__pregel_scratchpad;
  const input = scratchpad?.currentTaskInput as Record<string, unknown> | undefined;
  const state = input?.[APPROVAL_BATCH_STATE_KEY];
  // Without the middleware there is no state: no parse (and no error built) on every tool call.
  if (state === undefined) return null;
  const parsed = approvalBatchStateSchema.safeParse(state);
  return parsed.success ? parsed.data : null;
}
