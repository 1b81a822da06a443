import { Controller, Delete, Get, Post, Req, Res, type Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpHttpEndpoint } from './mcp-http.endpoint.js';

/** Express hands Node's own request and response; Fastify wraps them (`raw`). */
type HttpRequest = IncomingMessage & { readonly body?: unknown; readonly raw?: IncomingMessage };
type HttpResponse = ServerResponse & { readonly raw?: ServerResponse };

/** The controller of the MCP endpoint at `path` (POST; GET and DELETE answer 405). */
export function mcpController(path: string): Type<unknown> {
  @Controller(path)
  class McpController {
    constructor(private readonly endpoint: McpHttpEndpoint) {}

    @Post()
    async post(@Req() request: HttpRequest, @Res() response: HttpResponse): Promise<void> {
      await this.endpoint.handle(request.raw ?? request, response.raw ?? response, request.body);
    }

    @Get()
    get(@Res() response: HttpResponse): void {
      this.endpoint.methodNotAllowed(response.raw ?? response);
    }

    @Delete()
    delete(@Res() response: HttpResponse): void {
      this.endpoint.methodNotAllowed(response.raw ?? response);
    }
  }
  return McpController;
}
