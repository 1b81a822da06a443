/**
 * Per-conversation ceilings (docs/budgets.md, "Call ceilings"): how many proposals one conversation may make, and how
 * many of them may be refused, per window. Counted in the `BudgetStore` (an amount of 1 per call), so they hold across
 * processes and nodes. Only calls whose action context carries `metadata.conversationId` are counted. Set one or both
 * ceilings: an array, another key (a misspelt `toolcalls`) or neither ceiling is refused at boot.
 *
 * @example callCeilings: { toolCalls: 200, deniedProposals: 10 }
 */
export interface CallCeilings {
  /** The most proposals one conversation may make per window; the next is `deny` at `call_ceiling`. */
  readonly toolCalls?: number;
  /**
   * The most refused proposals (`deny` or `throttle`) one conversation may collect per window: the one that reaches
   * it raises `ToolLoopDetected`, and every later proposal of the conversation is `deny` at `call_ceiling` — an
   * agent run ends there (`CallCeilingReachedError`). A refusal is counted even when its evidence could not be
   * written; one shadow mode went on past (`would_deny`) is not. A store that cannot count it fails the call.
   */
  readonly deniedProposals?: number;
  /** The window in seconds, aligned to the epoch. Default: 86,400 (a day). */
  readonly window?: number;
}

/** What call ceilings read of the module options. */
export interface CallCeilingOptions {
  /** Per-conversation ceilings on proposals and on refused proposals; needs `budgets` (checked at boot). */
  readonly callCeilings?: CallCeilings;
}

/** The default window of call ceilings: a day. */
export const DEFAULT_CALL_CEILING_WINDOW = 86_400;
