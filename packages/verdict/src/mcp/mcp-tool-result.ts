import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Disposition } from '../decisions/disposition.js';
import { publicAnswer } from '../public-answer.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import { MCP_APPROVAL_META, type McpPendingApproval } from './mcp-meta.js';

/**
 * The `tools/call` result for a pipeline result. The text is always `publicAnswer`: the executor's output, or the
 * fixed `not_executed` answer (never an internal reason). A refusal (`deny`, `throttle`) is a tool error
 * (`isError`); a call waiting for a human (`require_confirmation`, `require_review`) is not, and one waiting for
 * an approval names it under `_meta["verdict/approval"]` (tool-call id, reason, expiry, URL; never the receipt id).
 */
export function mcpToolResult(
  result: ExecutionResult,
  publicMessage: string,
  approvalUrl: ((toolCallId: string) => string) | undefined,
): CallToolResult {
  const content = [{ type: 'text' as const, text: publicAnswer(result, publicMessage) }];
  if (result.executed) return { content };
  const { disposition } = result.decision;
  if (disposition === Disposition.RequireReview) return { content };
  const challenge = result.challenge;
  if (disposition !== Disposition.RequireConfirmation || challenge === undefined) return { content, isError: true };
  const approval: McpPendingApproval = {
    toolCallId: challenge.toolCallId,
    capability: challenge.capability,
    reason: challenge.reason,
    description: challenge.description,
    expiresAt: challenge.expiresAt.toISOString(),
    url: approvalUrl?.(challenge.toolCallId) ?? null,
  };
  return { content, _meta: { [MCP_APPROVAL_META]: approval } };
}
