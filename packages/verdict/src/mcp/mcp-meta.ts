/**
 * `_meta` key of a pending result: what a client needs to have the call approved (never the receipt id).
 * @see McpPendingApproval
 */
export const MCP_APPROVAL_META = 'verdict/approval';

/** `_meta` key of a `tools/call` that resumes an approved call: the tool-call id the pending result named. */
export const MCP_TOOL_CALL_ID_META = 'verdict/toolCallId';

/** Under `_meta["verdict/approval"]` of a pending `tools/call` result. */
export interface McpPendingApproval {
  /** Pass it back as `_meta["verdict/toolCallId"]` once a human approved the call. */
  readonly toolCallId: string;
  readonly capability: string;
  /**
   * Why the call waits for a human: the capability's `requiresConfirmation` reason (application text). When
   * provenance asks — strict mode, or a provenance rule, and an MCP call's window is always unobserved — it is
   * followed by the capability's `provenance.reason`, if any, and the provenance summary; a capability without
   * `requiresConfirmation` has those alone. The summary names source labels and argument paths (a path the policy
   * does not declare as `#<sha256 prefix>`), never an argument's value, an id or content.
   */
  readonly reason: string;
  /** The application's description of this call, or `null`. */
  readonly description: string | null;
  /** ISO 8601. */
  readonly expiresAt: string;
  /** The application's approval page (`approvalUrl`), or `null`. */
  readonly url: string | null;
}

/**
 * `_meta` key of a result whose call waits for staff review (`require_review`): the call did not run, and a worker
 * runs it later, outside the conversation, if a reviewer approves it. Never the review item's id.
 * @see McpPendingReview
 */
export const MCP_REVIEW_META = 'verdict/review';

/** Under `_meta["verdict/review"]` of a `tools/call` result parked for review. */
export interface McpPendingReview {
  /**
   * The tool-call id the call was parked under. Passed back as `_meta["verdict/toolCallId"]` with the same arguments,
   * it finds the same review item rather than parking another; it never runs the call.
   */
  readonly toolCallId: string;
  readonly capability: string;
  /** Why the call waits for a reviewer: the capability's `requiresReview` reason (application text). */
  readonly reason: string;
}
