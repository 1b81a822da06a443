import { Inject, Injectable, Optional } from '@nestjs/common';
import type { McpPinChange } from '../mcp/mcp-lockfile.js';
import { recordedMcpToolName } from '../mcp/mcp-tool-name.js';
import { type CliStreams, processStreams } from './cli-output.js';
import type { CliCommandRunner } from './cli-program.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import { type McpCommandOptions, reviewMcpServer, urlChangeText } from './listed-mcp-pins.js';
import { line } from './output-line.js';
import { printableName, quotedText } from './printable-text.js';

/**
 * `mcp diff <server> <url> [--lockfile <file>] [--header <name:value>...] [--prefix-tool-name-with-server-name]
 * [--additional-tool-name-prefix <prefix>] [--json]`: what the server lists now — its tools named as the naming flags
 * say, else as the lockfile records for the server (ADR 0143) — against its pins in the lockfile: new tools, removed
 * ones, changed schemas and changed descriptions (both texts; a tool whose description and schema both changed is
 * `description_and_schema_changed`, with both texts), tools whose definition cannot be fingerprinted (`unpinnable`,
 * ADR 0150), names the server lists more than once (`duplicate`, ADR 0169), and a URL other than the one the server
 * was pinned from.
 * Exits 1 when something changed or the server cannot be listed, 0 when it is as pinned, 2 on a usage error: a CI
 * step that catches a rug pull before an agent does.
 */
@Injectable()
export class McpDiffCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  run(params: string[], options: McpCommandOptions = {}): Promise<void> {
    return reviewMcpServer(
      this.streams,
      params,
      options,
      'diff',
      ({ server, path, changes, toolNaming, urlChange, json }) => {
        this.streams.out(
          json
            ? JSON.stringify({
                lockfile: path,
                server,
                toolNaming: toolNaming ?? {},
                urlChange,
                changes: changesJson(changes),
              })
            : urlChangeText(server, urlChange) + changesText(changes),
        );
        process.exitCode = changes.length === 0 && urlChange === null ? 0 : 1;
      },
    );
  }
}

/**
 * The changes for a reviewer: one line each, a changed description with both texts. Names that are not plain and
 * every description are quoted (ADR 0150): what the server lists can neither add a line nor rewrite one. A name
 * outside MCP's tool-name rule, listed now, also shows the name `McpToolRefused` records for it (`unknown:<sha256>`),
 * so a refusal in the application's logs can be matched to its line.
 */
export function changesText(changes: readonly McpPinChange[]): string {
  if (changes.length === 0) return 'no changes: every listed tool is as pinned';
  return changes
    .map((change) => {
      const recorded = recordedAs(change);
      const head = line`${printableName(change.server)}/${printableName(change.tool)}: ${change.change}${recorded === undefined ? '' : ` (recorded as ${recorded})`}`;
      if (change.change !== 'description_changed' && change.change !== 'description_and_schema_changed') return head;
      return [
        head,
        line`  - pinned:  ${quotedText(change.pinnedDescription!)}`,
        line`  + current: ${quotedText(change.currentDescription!)}`,
      ].join('\n');
    })
    .join('\n');
}

/**
 * The changes for a script (`--json`): names as the server lists them, and beside a listed name outside MCP's tool-name
 * rule the name `McpToolRefused` records for it (`recordedAs`: `unknown:<sha256>`), as the review's lines show it.
 */
export function changesJson(changes: readonly McpPinChange[]): readonly (McpPinChange & { recordedAs?: string })[] {
  return changes.map((change) => {
    const recorded = recordedAs(change);
    return recorded === undefined ? change : { ...change, recordedAs: recorded };
  });
}

/** The name `McpToolRefused` records for a listed tool when it is not the listed name; `undefined` otherwise or when removed. */
function recordedAs({ tool, change }: McpPinChange): string | undefined {
  const recorded = recordedMcpToolName(tool);
  return recorded === tool || change === 'removed' ? undefined : recorded;
}
