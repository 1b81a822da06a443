import { Module } from '@nestjs/common';
import { McpHttpEndpoint } from './mcp-http.endpoint.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { McpToolCatalog } from './mcp-tool-catalog.js';
import { VERDICT_MCP_OPTIONS } from './verdict-mcp-options.interface.js';
import { ConfigurableVerdictMcpModule, VERDICT_MCP_MODULE_OPTIONS } from './verdict-mcp.module-definition.js';
import { VerdictCoreAccessModule } from '../verdict-core-access.module.js';

/**
 * Serves declared capabilities as MCP tools over Streamable HTTP (docs/mcp.md, ADR 0066): `POST /<path>`
 * (default `mcp`). Each request is authenticated by `authenticate`; its principal is the actor and tenant of every
 * call, `tools/list` shows what its CASL ability allows, and every `tools/call` runs the capability's pipeline.
 * Import it beside `VerdictModule.forRoot(...)`; the SDK (`@modelcontextprotocol/sdk`) is an optional peer loaded
 * only by this entry point.
 *
 * @example
 * \@Module({
 *   imports: [
 *     VerdictModule.forRoot(options),
 *     VerdictMcpModule.forRootAsync({
 *       path: 'mcp',
 *       inject: [TokenVerifier],
 *       useFactory: (tokens: TokenVerifier) => ({ tools: ['orders.view'], authenticate: (request) => tokens.principalOf(request) }),
 *     }),
 *   ],
 * })
 */
@Module({
  imports: [VerdictCoreAccessModule],
  providers: [
    { provide: VERDICT_MCP_OPTIONS, useExisting: VERDICT_MCP_MODULE_OPTIONS },
    McpToolCatalog,
    McpServerFactory,
    McpHttpEndpoint,
  ],
  exports: [McpServerFactory],
})
export class VerdictMcpModule extends ConfigurableVerdictMcpModule {}
