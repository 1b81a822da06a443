import { Inject, Injectable, Optional } from '@nestjs/common';
import { lockfileOf, writeLockfile } from '../mcp/mcp-lockfile.js';
import { McpPinStatus } from '../mcp/mcp-tool-pin.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import type { CliCommandRunner } from './cli-program.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import { type McpCommandOptions, reviewMcpServer, urlChangeText } from './listed-mcp-pins.js';
import { toolNamingText } from './mcp-tool-naming-flags.js';
import { changesJson, changesText } from './mcp-diff.command.js';
import { line } from './output-line.js';
import { printableName } from './printable-text.js';

/**
 * `mcp pin <server> <url> [--lockfile <file>] [--header <name:value>...] [--prefix-tool-name-with-server-name]
 * [--additional-tool-name-prefix <prefix>] [--json]`: lists the server's tools, named as the agent's client names
 * them, and writes their pins to the lockfile (default `verdict-mcp.lock.json`) with the URL they were read from and
 * that naming (ADR 0143), replacing that server's pins and keeping the other servers'. Without naming flags, the
 * naming the lockfile records for the server. Prints what it re-pinned, so the operator sees what they approve;
 * commit the lockfile for review. A tool whose definition cannot be fingerprinted is printed `unpinnable` and not
 * pinned (ADR 0150): it stays refused. A server that lists a tool name more than once is not pinned at all (ADR
 * 0169): the error names those tools, and the server's pins stay as they were. Exits 1 when the server cannot be
 * listed or lists a name twice (nothing is written), 2 on a usage error.
 */
@Injectable()
export class McpPinCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  run(params: string[], options: McpCommandOptions = {}): Promise<void> {
    return reviewMcpServer(
      this.streams,
      params,
      options,
      'pin',
      async ({ server, path, lock, current, changes, url, toolNaming, urlChange, json }) => {
        const twice = changes.filter((change) => change.change === McpPinStatus.Duplicate);
        if (twice.length > 0)
          return fail(
            this.streams,
            json,
            `cannot pin ${printableName(server)}: it lists ${twice.map((change) => printableName(change.tool)).join(', ')} more than once (duplicate), so no one definition can be reviewed: nothing is pinned and its pins stay as they were; pin it again once it lists each tool once`,
          );
        const others = lock.tools.filter((pin) => pin.server !== server);
        const identity = { url, toolNaming };
        await writeLockfile(path, lockfileOf([...others, ...current], { ...lock.servers, [server]: identity }));
        this.streams.out(
          json
            ? JSON.stringify({
                lockfile: path,
                server,
                url,
                toolNaming: toolNaming ?? {},
                pinned: current.length,
                urlChange,
                changes: changesJson(changes),
              })
            : urlChangeText(server, urlChange) +
                changesText(changes) +
                '\n' +
                line`pinned ${current.length} tool(s) of ${printableName(server)} from ${url} in ${path}${toolNamingText(toolNaming)}`,
        );
      },
    );
  }
}
