import type { StructuredToolInterface } from '@langchain/core/tools';
import { toJSONSchema } from 'zod';
import { isZodSchema } from '../capabilities/argument-schema.js';
import type { JsonObject } from '../fingerprints/json-value.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import { type McpPinStatus, McpPinStatus as Status, type McpToolPin, pinOf, pinStatus } from '../mcp/mcp-tool-pin.js';

/** A tool of an MCP server that was not handed to the agent, and why. */
export interface RefusedMcpTool {
  readonly server: string;
  readonly tool: string;
  readonly status: Exclude<McpPinStatus, 'pinned'>;
}

/** What {@link pinnedMcpTools} answers. */
export interface PinnedMcpTools {
  /** The tools whose description and schema are as pinned: give these to the agent. */
  readonly tools: readonly StructuredToolInterface[];
  readonly refused: readonly RefusedMcpTool[];
  /** For `ProvenanceTracker` `tools`: every result of these tools is labelled `mcp:<server>`, untrusted. */
  readonly sources: Readonly<Record<string, ProvenanceSource>>;
  /** The pins of every listed tool as it is now (for `verdict mcp pin`). */
  readonly current: readonly McpToolPin[];
}

/**
 * Keeps the tools of one MCP server (as `@langchain/mcp-adapters` made them) whose description and input schema
 * are exactly as pinned, and refuses the others: unpinned, rug-pulled description, changed schema (ADR 0067, draft).
 *
 * @example
 * const { tools, sources } = pinnedMcpTools('files', await client.getTools('files'), lockfile.tools);
 */
export function pinnedMcpTools(
  server: string,
  listed: readonly StructuredToolInterface[],
  pins: readonly McpToolPin[],
): PinnedMcpTools {
  const tools: StructuredToolInterface[] = [];
  const refused: RefusedMcpTool[] = [];
  const current: McpToolPin[] = [];
  for (const tool of listed) {
    const pin = pinOf(server, { name: tool.name, description: tool.description, inputSchema: jsonSchemaOf(tool) });
    current.push(pin);
    const status = pinStatus(pins, pin);
    if (status === Status.Pinned) tools.push(tool);
    else refused.push({ server, tool: tool.name, status });
  }
  const source = ProvenanceSource.mcp(server);
  return { tools, refused, current, sources: Object.fromEntries(tools.map((tool) => [tool.name, source])) };
}

/** The schema the model is shown: JSON Schema as the adapter made it, or a zod schema converted. */
function jsonSchemaOf(tool: StructuredToolInterface): JsonObject {
  const schema: unknown = tool.schema;
  if (isZodSchema(schema)) return toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  return JSON.parse(JSON.stringify(schema ?? {})) as JsonObject;
}
