/**
 * How the agent's `MultiServerMCPClient` (`@langchain/mcp-adapters`) names a server's tools: its two options of the
 * same names. The adapter names the tool `read_file` of server `files` `mcp__files__read_file` with both set
 * (`additionalToolNamePrefix: 'mcp'`), `files__read_file` with the server name alone, `mcp__read_file` with the
 * prefix alone. Pins are per tool name, so `verdict mcp pin|diff` list through the adapter with the options the
 * agent uses, and the lockfile records them per server (ADR 0143).
 */
export interface McpToolNaming {
  /** The adapter's option: the server name, then `__`, before each tool name. Default `false`. */
  readonly prefixToolNameWithServerName?: boolean;
  /** The adapter's option: this prefix, then `__`, before each tool name (and before the server name). Default `''`. */
  readonly additionalToolNamePrefix?: string;
}

/**
 * `naming` as the lockfile records it: only what differs from the adapter's defaults (`false`, `''`), in a stable
 * order; `undefined` when the adapter names tools as the server lists them.
 */
export function recordedToolNaming(naming: McpToolNaming | undefined): McpToolNaming | undefined {
  const prefix = naming?.additionalToolNamePrefix ?? '';
  const server = naming?.prefixToolNameWithServerName === true;
  if (prefix === '' && !server) return undefined;
  return {
    ...(prefix === '' ? {} : { additionalToolNamePrefix: prefix }),
    ...(server ? { prefixToolNameWithServerName: true } : {}),
  };
}

/** Whether `value` is a {@link McpToolNaming} as read from a lockfile: an object of those two options, typed. */
export function isToolNaming(value: unknown): value is McpToolNaming {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const naming = value as Record<string, unknown>;
  return (
    Object.keys(naming).every((key) => key === 'prefixToolNameWithServerName' || key === 'additionalToolNamePrefix') &&
    (naming.prefixToolNameWithServerName === undefined || typeof naming.prefixToolNameWithServerName === 'boolean') &&
    (naming.additionalToolNamePrefix === undefined || typeof naming.additionalToolNamePrefix === 'string')
  );
}
