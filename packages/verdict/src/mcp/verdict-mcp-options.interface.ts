import type { IncomingMessage } from 'node:http';
import type { ActionContext } from '../context/action-context.js';

/** One capability exposed as an MCP tool. */
export interface McpToolDeclaration {
  /** The capability's name (`orders.cancel`); it must exist and have an executor (checked at boot). */
  readonly capability: string;
  /** The tool's name for MCP clients (letters, digits, `_`, `-`, `.`; at most 128). Default: the capability's name. */
  readonly name?: string;
  /** Default: the capability's description. */
  readonly description?: string;
}

/**
 * The options of `VerdictMcpModule.forRoot` / `forRootAsync` (docs/mcp.md).
 *
 * @example
 * VerdictMcpModule.forRoot({
 *   tools: ['orders.view', 'orders.cancel'],
 *   authenticate: async (request) => principalOf(request.headers.authorization), // null → 401
 *   approvalUrl: (toolCallId) => `https://shop.example/approvals/${encodeURIComponent(toolCallId)}`,
 * })
 */
export interface VerdictMcpOptions {
  /** The capabilities exposed as tools: a capability is never exposed unless it is named here. */
  readonly tools: readonly (string | McpToolDeclaration)[];
  /**
   * Verifies the HTTP request (an OAuth bearer, a session) and answers its principal as the action context of
   * every call it carries, or `null`: the request is answered 401 and nothing runs. Never read the actor or
   * tenant from the MCP message. An exception here is an application fault (500).
   */
  readonly authenticate: (request: IncomingMessage) => ActionContext | null | Promise<ActionContext | null>;
  /**
   * Where a human approves a call that requires confirmation, given its tool-call id: shown to the client in
   * the pending result's `_meta["verdict/approval"].url`. The id may be the client's own (`_meta["verdict/toolCallId"]`
   * on a first call): encode it (`encodeURIComponent`). Default: no URL (the client learns the tool-call id only).
   */
  readonly approvalUrl?: (toolCallId: string) => string;
  /** The server's name and version in the MCP handshake. Default: `{ name: 'verdict', version: '1.0.0' }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/** Injects the {@link VerdictMcpOptions}. */
export const VERDICT_MCP_OPTIONS = Symbol('VerdictMcpOptions');
