import { Inject, Injectable } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isActionContext } from '../context/action-context.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { VERDICT_MCP_OPTIONS, type VerdictMcpOptions } from './verdict-mcp-options.interface.js';

/**
 * Streamable HTTP, stateless (ADR 0066): each POST is authenticated by the application's hook and served by a
 * fresh MCP server acting as its principal. No principal → 401 before the message is read.
 */
@Injectable()
export class McpHttpEndpoint {
  constructor(
    private readonly servers: McpServerFactory,
    @Inject(VERDICT_MCP_OPTIONS) private readonly options: VerdictMcpOptions,
  ) {}

  /** Serves one POST; `body` is the parsed JSON body (Nest's body parser ran before). */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const principal = await this.options.authenticate(request);
    if (principal === null || principal === undefined) return unauthorized(response);
    if (!isActionContext(principal))
      throw new VerdictConfigurationError(
        'VerdictMcpModule: authenticate answered something that is not an action context ({ actor, tenant }) or null.',
      );
    const server = this.servers.create(principal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /** GET (a server-to-client stream) and DELETE (end a session) have no meaning without sessions. */
  methodNotAllowed(response: ServerResponse): void {
    response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
    response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
  }
}

function unauthorized(response: ServerResponse): void {
  response.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"', 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: 'invalid_token', error_description: 'Missing or invalid credentials.' }));
}
