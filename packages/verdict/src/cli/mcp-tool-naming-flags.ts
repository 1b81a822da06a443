import { type McpToolNaming, recordedToolNaming } from '../mcp/mcp-tool-naming.js';
import type { CliOptionSpec } from './cli-program.js';

/**
 * The naming flags of `verdict mcp pin|diff`: the agent's `MultiServerMCPClient` options, so that the pins carry the
 * tool names the agent sees (ADR 0143). Commander gives them the adapter's option names.
 */
export const toolNamingOptions: readonly CliOptionSpec[] = [
  {
    flags: '--prefix-tool-name-with-server-name',
    description: "As the agent's MultiServerMCPClient option: tools named <server>__<tool> (default: as recorded)",
  },
  {
    flags: '--no-prefix-tool-name-with-server-name',
    description: 'Tools named without the server name, whatever the lockfile records',
  },
  {
    flags: '--additional-tool-name-prefix <prefix>',
    description:
      "As the agent's MultiServerMCPClient option: tools named <prefix>__<tool> (default: as recorded; '' for none)",
  },
];

/**
 * The naming to list with: each naming flag given, else what the lockfile records for the server, so that a re-pin
 * or a diff without the flags names the tools as they were pinned (`--no-prefix-tool-name-with-server-name` and
 * `--additional-tool-name-prefix ''` drop a recorded option). `undefined`: as the server lists them.
 */
export function namingOf(flags: McpToolNaming, recorded: McpToolNaming | undefined): McpToolNaming | undefined {
  return recordedToolNaming({
    prefixToolNameWithServerName: flags.prefixToolNameWithServerName ?? recorded?.prefixToolNameWithServerName,
    additionalToolNamePrefix: flags.additionalToolNamePrefix ?? recorded?.additionalToolNamePrefix,
  });
}

/** What `verdict mcp pin` adds to its last line when the tools were renamed: the adapter's options it named them with. */
export function toolNamingText(naming: McpToolNaming | undefined): string {
  return naming === undefined ? '' : `, named with ${JSON.stringify(naming)}`;
}
