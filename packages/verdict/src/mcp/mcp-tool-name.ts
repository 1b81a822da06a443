import { recordedCapability } from '../evidence/recorded-capability.js';

/** MCP's tool-name rule (SEP-986): letters, digits, `_`, `-`, `.`; 1 to 128 characters. */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The name an event records for a tool an MCP server lists: the name when it keeps MCP's tool-name rule, otherwise
 * `unknown:<sha256(name)>`, as evidence records a capability name the model made up ({@link recordedCapability}) — a
 * name a server chose beyond that rule (line breaks, control or invisible characters, any length) is the server's
 * text, and an event that applications log carries none of it.
 */
export function recordedMcpToolName(name: string): string {
  return recordedCapability(name, MCP_TOOL_NAME.test(name));
}
