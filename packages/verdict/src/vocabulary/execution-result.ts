import type { ApprovalChallenge } from '../approvals/approval-challenge.js';
import type { Decision } from '../decisions/decision.js';

/** The outcome of running a proposal through the pipeline. Only a permitted proposal carries an output. */
export type ExecutionResult<TOutput = unknown> =
  | {
      readonly executed: true;
      readonly capability: string;
      readonly correlationId: string;
      readonly decision: Decision;
      readonly output: TOutput;
    }
  | {
      readonly executed: false;
      readonly capability: string;
      readonly correlationId: string;
      readonly decision: Decision;
      /** Set with `require_confirmation` when a receipt awaits a human: for the application, never the model. */
      readonly challenge?: ApprovalChallenge;
    };
