import type { JsonObject } from '../fingerprints/json-value.js';
import { pinFingerprint } from './pin-fingerprint.js';

/** An MCP server's tool as `tools/list` describes it: what an agent's model reads and what it fills in. */
export interface ListedMcpTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
}

/**
 * One reviewed tool of one MCP server, as the lockfile keeps it: the fingerprints decide; the description is kept
 * so that `verdict mcp diff` can show a reviewer what changed.
 */
export interface McpToolPin {
  readonly server: string;
  readonly tool: string;
  /** `sha256(JCS(description))` (the empty string when the server gave none; ADR 0150). */
  readonly descriptionFingerprint: string;
  /** `sha256(JCS(inputSchema))` (ADR 0150). */
  readonly inputSchemaFingerprint: string;
  readonly description: string;
}

/**
 * The pin of a listed tool. Any JSON the server lists pins, keys named `constructor` or `__proto__` and lone
 * surrogates included (ADR 0150).
 *
 * @throws NonCanonicalValueError when the description or input schema is not JSON, or is nested deeper than 128
 *   levels: the tool is `unpinnable`.
 */
export function pinOf(server: string, tool: ListedMcpTool): McpToolPin {
  const description = tool.description ?? '';
  return {
    server,
    tool: tool.name,
    descriptionFingerprint: pinFingerprint(description),
    inputSchemaFingerprint: pinFingerprint(tool.inputSchema),
    description,
  };
}

/** How a listed tool stands against the lockfile. */
export const McpPinStatus = {
  Pinned: 'pinned',
  /** Never reviewed: refused until an operator pins it. */
  Unpinned: 'unpinned',
  /** The description changed; the input schema is as pinned. */
  DescriptionChanged: 'description_changed',
  /** The input schema changed; the description is as pinned. */
  SchemaChanged: 'schema_changed',
  /** Both changed: a reviewer must read the new description and the new schema. */
  DescriptionAndSchemaChanged: 'description_and_schema_changed',
  /**
   * Its description or input schema cannot be fingerprinted (not JSON, or nested deeper than 128 levels): refused,
   * and it cannot be pinned (ADR 0150).
   */
  Unpinnable: 'unpinnable',
  /**
   * The server lists its name more than once (ADR 0169): which definition the model reads, and which one a call
   * reaches, is the server's choice. Refused whatever the pins say; `verdict mcp pin` refuses the server until it
   * lists each tool once.
   */
  Duplicate: 'duplicate',
} as const;
export type McpPinStatus = (typeof McpPinStatus)[keyof typeof McpPinStatus];

/**
 * The status of `current` against the pins of a lockfile; only `pinned` may be used. A tool whose description and
 * schema both changed is `description_and_schema_changed`: neither change hides the other.
 */
export function pinStatus(pins: readonly McpToolPin[], current: McpToolPin): McpPinStatus {
  const pinned = pins.find((pin) => pin.server === current.server && pin.tool === current.tool);
  if (pinned === undefined) return McpPinStatus.Unpinned;
  const description = pinned.descriptionFingerprint !== current.descriptionFingerprint;
  const schema = pinned.inputSchemaFingerprint !== current.inputSchemaFingerprint;
  if (description && schema) return McpPinStatus.DescriptionAndSchemaChanged;
  if (description) return McpPinStatus.DescriptionChanged;
  if (schema) return McpPinStatus.SchemaChanged;
  return McpPinStatus.Pinned;
}

/** The names `names` holds more than once: each tool a server lists under one of them is `duplicate` (ADR 0169). */
export function duplicateNames(names: readonly string[]): ReadonlySet<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of names) (seen.has(name) ? repeated : seen).add(name);
  return repeated;
}
