/**
 * A tool call's arguments as a tracker and its bound tool both read them: the JSON the model wrote, `{}` for an empty
 * text (as the AI SDK parses it), and the text itself when it is not JSON (a call that did not parse, which neither
 * SDK hands a tool: ADR 0089). Where a tracker keeps a call's window and where its bound tool looks for it must read
 * the arguments alike (ADR 0106).
 */
export function toolCallInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
