import { RunStoppingError } from './run-stopping.error.js';

/**
 * Thrown by an agent tool of Verdict (LangChain, AI SDK, OpenAI Agents) when the conversation reached a call ceiling
 * (`deny` at `call_ceiling`, which is recorded): it ends the agent run instead of answering the model, which would
 * only propose again. Not an application fault, and never wrapped as one; like one, it refuses to become text
 * (`RunStoppingError`).
 */
export class CallCeilingReachedError extends RunStoppingError {
  readonly code = 'VERDICT_CALL_CEILING_REACHED';

  constructor(capability: string, tool: string) {
    super(
      `The conversation reached a call ceiling at tool "${tool}": the agent run stops here (see the evidence at stage call_ceiling).`,
      { capability, tool },
    );
  }
}
