// Capabilities as MCP tools over Streamable HTTP (optional peer: @modelcontextprotocol/sdk). docs/mcp.md, ADR 0066.
export { VerdictMcpModule } from './verdict-mcp.module.js';
export { McpServerFactory } from './mcp-server.factory.js';
export type { VerdictMcpExtras } from './verdict-mcp.module-definition.js';
export {
  VERDICT_MCP_OPTIONS,
  type VerdictMcpOptions,
  type McpToolDeclaration,
} from './verdict-mcp-options.interface.js';
export {
  MCP_APPROVAL_META,
  MCP_REVIEW_META,
  MCP_TOOL_CALL_ID_META,
  type McpPendingApproval,
  type McpPendingReview,
} from './mcp-meta.js';
export { type McpToolCall, mcpToolResult } from './mcp-tool-result.js';
export type { McpInputSchema } from './mcp-input-schema.js';
