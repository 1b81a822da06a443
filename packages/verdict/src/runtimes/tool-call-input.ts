/**
 * A tool call's arguments as the AI SDK and OpenAI Agents parse them for the tool: the JSON the model wrote, `{}` for
 * an empty text, and the text itself when it is not JSON (a call that did not parse). Where a tracker keeps a call's
 * window and where its bound tool looks for it must read the arguments alike (ADR 0106).
 */
export function toolCallInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
