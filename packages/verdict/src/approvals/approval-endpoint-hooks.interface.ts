import type { ExecutionContext } from '@nestjs/common';
import type { ActionContext } from '../context/action-context.js';
import type { HookPresence } from '../shared/hooks-object.js';

/** An authenticated approver: an opaque id (`customer:72`, never PII) and the context their CASL ability is built for. */
export interface Approver {
  readonly id: string;
  readonly context: ActionContext;
}

/**
 * The application's side of `@ApprovalEndpoint()`: who is asking, which conversation the approval
 * request is about, and whether they may see it. Verdict adds the scoped receipt lookup and the CASL check.
 */
export interface ApprovalEndpointHooks {
  /**
   * The authenticated approver of this request (after your auth guard), or `null` or `undefined` (→ 401). An answer
   * that is not an object, or whose `id` is not a non-blank string, names nobody either (→ 401).
   */
  approver(executionContext: ExecutionContext): Approver | null | undefined | Promise<Approver | null | undefined>;
  /** The tool-call id this request is about. Default: the `toolCallId` route parameter. */
  toolCallId?(executionContext: ExecutionContext): string | undefined;
  /**
   * The action context the tool call was proposed in — the requesting actor, tenant and
   * `metadata.conversationId`, exactly as `resolveContext` built it for that conversation — from trusted
   * data (your chat store's conversation row named by the route), or `null` when there is no such
   * conversation (→ 403). Only the pending receipt that this requester asked for is found.
   * Default: `approver.context` (approvers approve only what they asked for themselves).
   */
  requester?(
    approver: Approver,
    toolCallId: string,
    executionContext: ExecutionContext,
  ): ActionContext | null | Promise<ActionContext | null>;
  /**
   * Whether `approver` may act on the conversation of `requester` (→ 403 otherwise), checked before any
   * receipt is looked up. `requester` is what {@link requester} answered (or `approver.context`). With a
   * `requester` hook, declare all four parameters: a three-parameter check is refused at boot, since it
   * cannot be checking the conversation the lookup is scoped to.
   */
  canAccessToolCall(
    approver: Approver,
    toolCallId: string,
    executionContext: ExecutionContext,
    requester: ActionContext,
  ): boolean | Promise<boolean>;
}

/** Each hook of {@link ApprovalEndpointHooks}, with whether it is required: what the boot checks (`assertHooks`). */
export const APPROVAL_ENDPOINT_HOOKS = {
  approver: 'required',
  toolCallId: 'optional',
  requester: 'optional',
  canAccessToolCall: 'required',
} as const satisfies Record<keyof ApprovalEndpointHooks, HookPresence>;
