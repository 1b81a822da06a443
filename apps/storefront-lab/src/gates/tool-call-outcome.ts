/** One tool call as the lab reports it: what the model read back, and whether anything ran. */
export interface ToolCallOutcome {
  readonly toolCallId: string;
  /** `executed`, or the disposition the model was told (`deny`, `throttle`, ...). */
  readonly outcome: string;
  readonly modelSaw: string;
}

/** Reads a bound tool's answer: the fixed not_executed JSON, or the executor's output. */
export function toolCallOutcome(toolCallId: string, content: string): ToolCallOutcome {
  let outcome = 'executed';
  try {
    const parsed = JSON.parse(content) as { status?: unknown; decision?: unknown };
    if (parsed?.status === 'not_executed') outcome = String(parsed.decision);
  } catch {
    // Plain-text output: the executor ran.
  }
  return { toolCallId, outcome, modelSaw: content };
}
