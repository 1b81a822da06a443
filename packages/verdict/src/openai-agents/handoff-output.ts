/**
 * Whether `text`, a function result under the tool name `toolName`, is exactly what the OpenAI Agents SDK writes as
 * the result of a handoff it ran (`getTransferMessage`): `{"assistant":"<agent name>"}`, for an agent whose handoff
 * tool has the SDK's default name, `transfer_to_<agent name>` spelled as a function tool's name. Any other text under
 * that name, or a handoff renamed (`toolNameOverride`), is not: a name cannot tell the SDK's text from a tool's.
 *
 * @example isHandoffOutput('transfer_to_Payer', '{"assistant":"Payer"}') // true
 */
export function isHandoffOutput(toolName: string | undefined, text: string): boolean {
  if (toolName === undefined) return false;
  let agent: unknown;
  try {
    agent = (JSON.parse(text) as { assistant?: unknown } | null)?.assistant;
  } catch {
    return false;
  }
  return (
    typeof agent === 'string' &&
    agent !== '' &&
    text === JSON.stringify({ assistant: agent }) &&
    toolName === `transfer_to_${functionToolName(agent)}`
  );
}

/** A name as the SDK spells a function tool's name (`toFunctionToolName`): every character outside `[A-Za-z0-9]` as `_`. */
function functionToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9]/g, '_');
}
