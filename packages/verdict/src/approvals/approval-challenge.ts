/**
 * What an application needs to ask a human: handed to the application (the LangGraph interrupt value,
 * or `ExecutionResult.challenge`), never to the model.
 */
export interface ApprovalChallenge {
  readonly receiptId: string;
  readonly toolCallId: string;
  readonly capability: string;
  readonly reason: string;
  readonly description: string | null;
  readonly expiresAt: Date;
}
