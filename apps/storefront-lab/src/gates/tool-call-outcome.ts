import { readNotExecutedMessage } from '@verdict/nestjs/langchain';

/** One tool call as the lab reports it: what the model read back, and whether anything ran. */
export interface ToolCallOutcome {
  readonly toolCallId: string;
  /** `executed`, or the disposition the model was told (`deny`, `throttle`, ...). */
  readonly outcome: string;
  readonly modelSaw: string;
}

/** Reads a bound tool's answer: the fixed not_executed JSON, or the executor's output. */
export function toolCallOutcome(toolCallId: string, content: string): ToolCallOutcome {
  return { toolCallId, outcome: readNotExecutedMessage(content)?.decision ?? 'executed', modelSaw: content };
}
