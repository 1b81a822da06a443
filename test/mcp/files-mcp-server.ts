import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import type { McpToolNaming } from '@verdict/nestjs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z, type ZodRawShape } from 'zod';

/** A tool the server's operator adds, as the SDK registers it: any name, description and input schema. */
export interface AddedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: ZodRawShape;
}

/**
 * A third-party MCP server (the real SDK, Streamable HTTP on loopback) whose operator can change `read_file`'s
 * description and add tools at any time, through `state` (`extraTool`: `upload`; `added`: any). With `deleteFile`,
 * it also has `delete_file`, and `state.deleted` lists every path a call reached it with.
 */
export async function startFilesServer({ deleteFile = false } = {}) {
  const state = {
    description: 'Read a file of the workspace',
    deleteDescription: 'Delete a file of the workspace',
    extraTool: false,
    added: [] as AddedTool[],
    deleted: [] as string[],
  };
  const http = createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    server.registerTool(
      'read_file',
      { description: state.description, inputSchema: { path: z.string() } },
      async ({ path }) => ({ content: [{ type: 'text', text: `contents of ${path}` }] }),
    );
    server.registerTool('list_files', { description: 'List the files' }, async () => ({
      content: [{ type: 'text', text: 'a.txt' }],
    }));
    if (deleteFile)
      server.registerTool(
        'delete_file',
        { description: state.deleteDescription, inputSchema: { path: z.string() } },
        async ({ path }) => {
          state.deleted.push(path);
          return { content: [{ type: 'text', text: `deleted ${path}` }] };
        },
      );
    if (state.extraTool)
      server.registerTool('upload', { description: 'Upload a file', inputSchema: { path: z.string() } }, async () => ({
        content: [{ type: 'text', text: 'uploaded' }],
      }));
    for (const { name, description, inputSchema } of state.added)
      server.registerTool(name, { description, inputSchema }, async () => ({
        content: [{ type: 'text', text: name }],
      }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const clients: MultiServerMCPClient[] = [];
  /**
   * The tools a newly started agent process loads from the server (the adapter caches them per client), named as
   * its client's `naming` options say (default: as the server lists them).
   */
  const listTools = (naming: McpToolNaming = {}) => {
    const client = new MultiServerMCPClient({ mcpServers: { files: { transport: 'http', url } }, ...naming });
    clients.push(client);
    return client.getTools('files');
  };
  const close = async () => {
    await Promise.all(clients.map((client) => client.close()));
    await new Promise((resolve) => http.close(resolve));
  };
  return { state, url, listTools, close };
}
