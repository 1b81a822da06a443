import type { ExecutionContext } from '@nestjs/common';
import type { ActionContext } from '../context/action-context.js';

/** An authenticated approver: an opaque id (`customer:72`, never PII) and the context their CASL ability is built for. */
export interface Approver {
  readonly id: string;
  readonly context: ActionContext;
}

/**
 * The application's side of `@ApprovalEndpoint()`: who is asking, and whether they may see the
 * conversation the pending tool call belongs to. Verdict adds the CASL check and the receipt lookup.
 */
export interface ApprovalEndpointHooks {
  /** The authenticated approver of this request (after your auth guard), or `null` (→ 401). */
  approver(executionContext: ExecutionContext): Approver | null | Promise<Approver | null>;
  /** The tool-call id this request is about. Default: the `toolCallId` route parameter. */
  toolCallId?(executionContext: ExecutionContext): string | undefined;
  /** Whether `approver` may access the conversation holding `toolCallId` (→ 403 otherwise). */
  canAccessToolCall(approver: Approver, toolCallId: string, executionContext: ExecutionContext): boolean | Promise<boolean>;
}
