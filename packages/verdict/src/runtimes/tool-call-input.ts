/**
 * A tool call's arguments as the AI SDK and the Agents SDK parse the model's text for the tool: JSON, an empty text as
 * `{}`, and text that is not JSON as it is.
 */
export function parseToolCallInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
