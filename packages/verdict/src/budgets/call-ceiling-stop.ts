import { Stage } from '../decisions/stage.js';
import { CallCeilingReachedError } from '../errors/call-ceiling-reached.error.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';

/**
 * What every agent-runtime tool of Verdict (LangChain, AI SDK, OpenAI Agents) does before answering the model: a
 * proposal refused at `call_ceiling` is not answered, it ends the agent run (the model would only propose again).
 *
 * @throws CallCeilingReachedError when `result` is `deny` at `call_ceiling`.
 */
export function stopAtCallCeiling(result: ExecutionResult, capability: string, tool: string): void {
  if (!result.executed && result.decision.stage === Stage.CallCeiling)
    throw new CallCeilingReachedError(capability, tool);
}
