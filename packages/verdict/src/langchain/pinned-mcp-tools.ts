import type { StructuredToolInterface } from '@langchain/core/tools';
import { toJSONSchema } from 'zod';
import { isZodSchema } from '../capabilities/argument-schema.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { McpToolRefused } from '../events/mcp-tool-refused.event.js';
import type { JsonObject } from '../fingerprints/json-value.js';
import { pinFingerprint } from '../mcp/pin-fingerprint.js';
import { recordedMcpToolName } from '../mcp/mcp-tool-name.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import {
  type McpPinStatus,
  McpPinStatus as Status,
  type McpToolPin,
  duplicateNames,
  pinOf,
  pinStatus,
} from '../mcp/mcp-tool-pin.js';
import type { VerdictTools } from './verdict-tools.js';
import { emitSafely } from '../events/emit-safely.js';

/** A tool of an MCP server that was not handed to the agent, and why. */
export interface RefusedMcpTool {
  readonly server: string;
  readonly tool: string;
  readonly status: Exclude<McpPinStatus, 'pinned'>;
}

/** Where {@link McpToolRefused} goes: an `EventEmitter2` fits. */
export interface McpEventSink {
  emit(event: string, value: unknown): unknown;
}

/** Options of {@link pinnedMcpTools}. */
export interface PinnedMcpToolsOptions {
  /**
   * The reviewed pins of this server: `serverPins(await readLockfile('verdict-mcp.lock.json'), server, url)`, which
   * answers none when the lockfile recorded them from another URL (the lockfile's whole `tools` would skip that check).
   */
  readonly pins: readonly McpToolPin[];
  /**
   * Tools of this server whose results the application trusts (say, a server it runs itself). Default: none — every
   * result of an MCP tool is untrusted content.
   */
  readonly trusted?: readonly string[];
  /** Receives {@link McpToolRefused} for each refused tool. */
  readonly events?: McpEventSink;
  /**
   * Tools of this server whose calls go through a declared capability (ADR 0083): each pinned tool named here is
   * handed over bound to its capability, so a call runs the capability's whole pipeline before the capability's
   * executor — yours — calls the MCP tool. Unnamed tools are handed over as the adapter made them. Every route's
   * capability is checked, whether its tool is pinned, refused or not listed: an unknown capability, or one without an
   * executor, is a `VerdictConfigurationError`.
   */
  readonly route?: McpToolRoute;
  /** Default: `() => new Date()`. */
  readonly clock?: () => Date;
}

/** How {@link PinnedMcpToolsOptions.route} routes MCP tools through declared capabilities. */
export interface McpToolRoute {
  /**
   * The agent module's `VerdictTools`: a routed tool is `tools.bound(mcpTool, capability)`, and every route is
   * checked with `tools.requireBindable`.
   */
  readonly tools: Pick<VerdictTools, 'bound' | 'requireBindable'>;
  /** MCP tool name → the name of the capability its calls go through (declared with an executor). */
  readonly capabilities: Readonly<Record<string, string>>;
}

/** What {@link pinnedMcpTools} answers. */
export interface PinnedMcpTools {
  /** The tools whose description and schema are as pinned (routed ones bound to their capability): give these to the agent. */
  readonly tools: readonly StructuredToolInterface[];
  readonly refused: readonly RefusedMcpTool[];
  /** For `ProvenanceTracker` `tools`: every result of these tools, routed ones included, is labelled `mcp:<server>`. */
  readonly sources: Readonly<Record<string, ProvenanceSource>>;
  /** For `ProvenanceTracker` `trustedTools`: the handed-over tools named in `trusted` (the others are untrusted). */
  readonly trustedTools: readonly string[];
  /**
   * The pins of every listed tool as it is now, the `unpinnable` and `duplicate` ones aside (what `verdict mcp pin`
   * writes).
   */
  readonly current: readonly McpToolPin[];
}

/**
 * Keeps the tools of one MCP server (as `@langchain/mcp-adapters` made them) whose description and input schema
 * are exactly as pinned, and refuses the others — unpinned, rug-pulled description, changed schema, a definition
 * that cannot be fingerprinted (`unpinnable`, ADR 0150), or a name the server lists more than once (each listing
 * `duplicate`, ADR 0169) — emitting {@link McpToolRefused} for each (ADR 0067). A refused tool is never given to the
 * agent, so its description never reaches the model.
 *
 * @throws VerdictConfigurationError when a route names an unknown capability, or one without an executor, whatever
 *   its tool's pin status (ADR 0083).
 * @example
 * const pins = serverPins(await readLockfile(path), 'files', url);
 * const files = pinnedMcpTools('files', await client.getTools('files'), { pins, events });
 * const tracker = trackers.forAgent({ tools: files.sources, trustedTools: files.trustedTools });
 */
export function pinnedMcpTools(
  server: string,
  listed: readonly StructuredToolInterface[],
  options: PinnedMcpToolsOptions,
): PinnedMcpTools {
  const clock = options.clock ?? (() => new Date());
  // Every route, before any tool is looked at: a typo'd capability is an error even while its tool is refused.
  const { route } = options;
  if (route !== undefined)
    for (const [tool, capability] of Object.entries(route.capabilities)) route.tools.requireBindable(tool, capability);
  const tools: StructuredToolInterface[] = [];
  const refused: RefusedMcpTool[] = [];
  const current: McpToolPin[] = [];
  // A name listed twice names no one definition: every listing of it is refused, whatever the pins (ADR 0169).
  const duplicate = duplicateNames(listed.map((tool) => tool.name));
  for (const tool of listed) {
    // Each tool on its own: one whose definition cannot be fingerprinted is refused, the others are not (ADR 0150).
    const pin = listedMcpToolPin(server, tool);
    const twice = duplicate.has(tool.name);
    if (pin !== Status.Unpinnable && !twice) current.push(pin);
    const status = twice ? Status.Duplicate : pin === Status.Unpinnable ? pin : pinStatus(options.pins, pin);
    if (status === Status.Pinned) {
      tools.push(routed(tool, route));
      continue;
    }
    refused.push({ server, tool: tool.name, status });
    const pinned = options.pins.find((each) => each.server === server && each.tool === tool.name);
    emitSafely(
      options.events,
      McpToolRefused.event,
      new McpToolRefused(
        server,
        recordedMcpToolName(tool.name),
        status,
        pinned?.descriptionFingerprint ?? null,
        pin === Status.Unpinnable ? pinFingerprint(tool.description ?? '') : pin.descriptionFingerprint,
        clock(),
      ),
    );
  }
  const source = ProvenanceSource.mcp(server);
  const trusted = new Set(options.trusted ?? []);
  return {
    tools,
    refused,
    current,
    sources: Object.fromEntries(tools.map((tool) => [tool.name, source])),
    trustedTools: tools.filter((tool) => trusted.has(tool.name)).map((tool) => tool.name),
  };
}

/** The pinned tool as the agent gets it: bound to its capability when `route` names it, else as it is. */
function routed(tool: StructuredToolInterface, route: McpToolRoute | undefined): StructuredToolInterface {
  // Own keys only: a server's tool named `constructor` or `__proto__` routes nowhere.
  if (route === undefined || !Object.hasOwn(route.capabilities, tool.name)) return tool;
  return route.tools.bound(tool, route.capabilities[tool.name]!);
}

/**
 * The pin of an MCP tool as `@langchain/mcp-adapters` made it: its description and the schema the model is shown
 * (the adapter's JSON Schema, or a zod schema converted). `verdict mcp pin` pins through this very function.
 *
 * @throws NonCanonicalValueError when the tool is `unpinnable` (ADR 0150).
 */
export function mcpToolPin(server: string, tool: StructuredToolInterface): McpToolPin {
  return pinOf(server, { name: tool.name, description: tool.description, inputSchema: jsonSchemaOf(tool) });
}

/**
 * {@link mcpToolPin}, or `'unpinnable'` when the tool's description or schema cannot be fingerprinted (ADR 0150):
 * that tool alone is refused, and `verdict mcp pin` reports it instead of pinning it.
 */
export function listedMcpToolPin(server: string, tool: StructuredToolInterface): McpToolPin | typeof Status.Unpinnable {
  try {
    return mcpToolPin(server, tool);
  } catch (error) {
    if (error instanceof NonCanonicalValueError) return Status.Unpinnable;
    throw error;
  }
}

function jsonSchemaOf(tool: StructuredToolInterface): JsonObject {
  const schema: unknown = tool.schema;
  if (isZodSchema(schema)) return toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  return JSON.parse(JSON.stringify(schema ?? {})) as JsonObject;
}
