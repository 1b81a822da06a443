import { ObservedToolCall } from '@verdict/evaluation';
import { Disposition } from '@verdict/nestjs';
import { readNotExecutedMessage } from '@verdict/nestjs/langchain';
import type { ScriptedChatModel } from '@verdict/testing-kit';

/**
 * The tool calls of one agent run, as the model saw them: every call the model emitted, with the
 * capability its tool is bound to, and what Verdict answered — the fixed `not_executed` message names
 * the disposition; anything else is the executor's output.
 */
export function observedAgentToolCalls(
  model: ScriptedChatModel,
  capabilityOfTool: Readonly<Record<string, string>>,
): ObservedToolCall[] {
  const answers = new Map(model.toolMessages().map((message) => [message.tool_call_id, String(message.content)]));
  return model.emittedToolCalls().map((call) => {
    const refusal = notExecuted(answers.get(call.id));
    return ObservedToolCall.of({
      capability: capabilityOfTool[call.name] ?? call.name,
      // Re-read as plain JSON: the arguments are provider JSON, and may come from another realm (a test runner's VM).
      arguments: JSON.parse(JSON.stringify(call.args)) as unknown,
      disposition: refusal ?? Disposition.Permit,
      executed: refusal === null,
    });
  });
}

function notExecuted(content: string | undefined): Disposition | null {
  // A call the model never got an answer for cannot be classified: a harness error, never a pass.
  if (content === undefined) throw new Error('a tool call was never answered');
  return readNotExecutedMessage(content)?.decision ?? null;
}
