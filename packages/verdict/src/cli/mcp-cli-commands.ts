import { McpDiffCommand } from './mcp-diff.command.js';
import { McpPinCommand } from './mcp-pin.command.js';

/** `verdict mcp pin|diff`: they need no application module (the bin runs them without `--module`). */
export const MCP_CLI_COMMANDS = [McpPinCommand, McpDiffCommand] as const;
