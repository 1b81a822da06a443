import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AnyAbility } from '@casl/ability';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization/authorization-options.interface.js';
import { isCanonicalJson } from '../fingerprints/canonical-json.js';
import { validateArguments } from '../capabilities/argument-validator.js';
import { MAX_TOOL_CALL_ID_LENGTH, proposedToolCallId } from '../capabilities/tool-call-id.js';
import { type ActionContext, isActionContext } from '../context/action-context.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { PublicMessage } from '../public-message.js';
import { outsideProvenance } from '../provenance/provenance-scope.js';
import { MCP_TOOL_CALL_ID_META } from './mcp-meta.js';
import { type McpTool, McpToolCatalog } from './mcp-tool-catalog.js';
import { mcpToolResult } from './mcp-tool-result.js';
import { VERDICT_MCP_OPTIONS, type VerdictMcpOptions } from './verdict-mcp-options.interface.js';

/**
 * Makes the MCP server of one authenticated request: `tools/list` shows the tools the principal's ability may
 * use, and `tools/call` runs the capability's pipeline in the principal's action context (ADR 0066). Exported by
 * `VerdictMcpModule` for another transport than Streamable HTTP (the SDK's stdio or in-memory transport): the
 * caller authenticates the principal, as `authenticate` does for HTTP.
 *
 * @example
 * const [client, server] = InMemoryTransport.createLinkedPair();
 * await servers.create(principal).connect(server);
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('VerdictMcp');

  constructor(
    private readonly catalog: McpToolCatalog,
    private readonly pipeline: VerdictPipeline,
    private readonly contexts: ActionContextStore,
    @Inject(AUTHORIZATION_OPTIONS) private readonly authorization: AuthorizationOptions,
    @Inject(PublicMessage) private readonly publicMessage: string,
    @Inject(VERDICT_MCP_OPTIONS) private readonly options: VerdictMcpOptions,
  ) {}

  /**
   * A server whose every tool call acts as `principal` (the principal `authenticate` answered, or the one you
   * authenticated for another transport). The server keeps a frozen copy (its metadata too): replacing the caller's `actor` or
   * `tenant` afterwards does not change the principal of an open connection.
   * @throws VerdictConfigurationError when `principal` is not an action context — null, no actor or a blank one, a
   *   tenant that is neither a non-blank string nor null — before any server is made (a missing identity claim is
   *   never a principal).
   */
  create(principal: ActionContext): Server {
    if (!isActionContext(principal))
      throw new VerdictConfigurationError(
        'McpServerFactory.create: the principal is not an action context ({ actor, tenant }): an actor that is not blank, and a tenant that is a non-blank string or null.',
      );
    // Its metadata copied too: a conversation id changed afterwards must not move an open connection's call ceilings.
    const { metadata } = principal;
    const context: ActionContext = Object.freeze({
      ...principal,
      ...(metadata === undefined ? {} : { metadata: Object.freeze({ ...metadata }) }),
    });
    const { name, version } = this.options.serverInfo ?? { name: 'verdict', version: '1.0.0' };
    const server = new Server({ name, version }, { capabilities: { tools: {} } });
    // Asked per request, never kept for the server's life: a stdio or in-memory connection lasts, and the ability
    // may change (a grant, a revocation) or fail once (a database blip) while it does.
    const tools = () => this.visibleTo(context);
    server.setRequestHandler(ListToolsRequestSchema, async () => this.faultsHidden(() => this.list(tools())));
    server.setRequestHandler(CallToolRequestSchema, async (request) =>
      this.faultsHidden(() => this.call(context, request, tools())),
    );
    return server;
  }

  private async visibleTo(context: ActionContext): Promise<ReadonlyMap<string, McpTool>> {
    const ability: AnyAbility = await this.authorization.abilityFactory.createForContext(context);
    return this.catalog.visibleTo(ability);
  }

  private async list(visible: Promise<ReadonlyMap<string, McpTool>>): Promise<ListToolsResult> {
    const tools = [...(await visible).values()].map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    }));
    return { tools };
  }

  private async call(
    context: ActionContext,
    request: CallToolRequest,
    visible: Promise<ReadonlyMap<string, McpTool>>,
  ): Promise<CallToolResult> {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    // A tool the principal may not use is answered as one that does not exist.
    const tool = (await visible).get(name);
    if (tool === undefined) throw invalidParams(`Unknown tool: ${name}`);
    // Malformed arguments are the client's typed error: nothing is resolved, spent, recorded or executed. So are
    // arguments that are not plain JSON as sent (a lone surrogate; a key `__proto__`, `constructor` or `prototype`),
    // which a schema may accept or drop. What the capability's own schema makes of them is the pipeline's to judge.
    if (!isCanonicalJson(args) || !(await validateArguments(tool.definition.arguments, args)).valid)
      throw invalidParams(`Invalid arguments for tool ${name}: see its inputSchema; plain JSON only`);
    const resumed = meta?.[MCP_TOOL_CALL_ID_META];
    if (resumed !== undefined && !isToolCallId(resumed))
      throw invalidParams(
        `_meta["${MCP_TOOL_CALL_ID_META}"] must be a non-blank string of at most ${MAX_TOOL_CALL_ID_LENGTH} characters, well-formed and without U+0000`,
      );
    const proposal = { capability: tool.definition.name, arguments: args, toolCallId: resumed ?? newToolCallId() };
    // Passing back the tool-call id of a pending result asks to run that call as approved: its receipt decides.
    // Outside the caller's window: on an in-memory connection the caller's async context reaches this handler, and
    // the client's agent's window is never the server's to see (unobserved, as over HTTP).
    const result = await outsideProvenance(() =>
      this.contexts.run(context, () =>
        this.pipeline.execute(proposal, ToolKind.Mcp, { explicitApproval: resumed !== undefined }),
      ),
    );
    const answered = { toolCallId: proposal.toolCallId, definition: tool.definition };
    return mcpToolResult(result, answered, this.publicMessage, this.options.approvalUrl);
  }

  /**
   * An application fault fails the request with a generic JSON-RPC error; its message stays in the server's log.
   * Only the client errors this server raised pass: an `McpError` from the application (say, its own MCP client's)
   * is a fault like any other.
   */
  private async faultsHidden<T>(handle: () => Promise<T>): Promise<T> {
    try {
      return await handle();
    } catch (error) {
      if (error instanceof McpError && clientErrors.has(error)) throw error;
      this.logger.error(
        'An MCP request failed with an application fault',
        error instanceof Error ? error.stack : error,
      );
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
  }
}

/** The `InvalidParams` errors this server raised about the client's request, and no other. */
const clientErrors = new WeakSet<McpError>();

function invalidParams(message: string): McpError {
  const error = new McpError(ErrorCode.InvalidParams, message);
  clientErrors.add(error);
  return error;
}

/**
 * A tool-call id a client may pass back: a string the pipeline takes as an id ({@link proposedToolCallId}: non-blank,
 * at most {@link MAX_TOOL_CALL_ID_LENGTH} characters, well-formed and without U+0000).
 */
function isToolCallId(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const proposed = proposedToolCallId(value);
  return proposed.wellFormed && proposed.id !== null;
}

/** A tool-call id for a call whose client gave none: transport metadata, never the identity of an operation. */
function newToolCallId(): string {
  return `mcp:${randomBytes(16).toString('base64url')}`;
}
