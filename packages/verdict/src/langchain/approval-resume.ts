import type { ApprovalChallenge } from '../approvals/approval-challenge.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';

/**
 * The interrupt a bound tool raises when a human must approve its call. It goes to the application
 * (graph state, stream), so it holds no receipt id: look the challenge up server-side with
 * `ApprovalService.challengeForToolCall(toolCallId, requester)`.
 */
export interface ApprovalInterrupt {
  readonly type: 'verdict.approval_required';
  readonly toolCallId: string;
  readonly capability: string;
  readonly reason: string;
  readonly description: string | null;
  readonly expiresAt: string;
  /** `ApprovalChallenge.provenance`: trusted data only, never values or content. */
  readonly provenance: ApproverProvenance | null;
}

/** The only resume value that lets a paused tool call execute: an explicit approval of that exact tool-call id. */
export interface ToolCallApproval {
  readonly type: 'verdict.approval';
  readonly toolCallId: string;
  readonly decision: 'approve' | 'reject';
}

/**
 * Resume value approving one tool call: `agent.invoke(new Command({ resume: approveToolCall(id) }), config)`.
 * Approve it with `ApprovalService.approve` first; "approve all" values, edits and rejections never execute.
 */
export function approveToolCall(toolCallId: string): ToolCallApproval {
  return { type: 'verdict.approval', toolCallId, decision: 'approve' };
}

/** Resume value declining one tool call (after `ApprovalService.reject`). */
export function rejectToolCall(toolCallId: string): ToolCallApproval {
  return { type: 'verdict.approval', toolCallId, decision: 'reject' };
}

/** Whether `resume` explicitly approves exactly `toolCallId`. */
export function isExplicitApproval(resume: unknown, toolCallId: string): boolean {
  if (typeof resume !== 'object' || resume === null) return false;
  const value = resume as Partial<ToolCallApproval>;
  return value.type === 'verdict.approval' && value.decision === 'approve' && value.toolCallId === toolCallId;
}

export function approvalInterrupt(challenge: ApprovalChallenge): ApprovalInterrupt {
  const { toolCallId, capability, reason, description, expiresAt, provenance } = challenge;
  return {
    type: 'verdict.approval_required',
    toolCallId,
    capability,
    reason,
    description,
    expiresAt: expiresAt.toISOString(),
    provenance,
  };
}
