import { listedMcpToolPin } from '../langchain/pinned-mcp-tools.js';
import {
  DEFAULT_MCP_LOCKFILE,
  diffLockfile,
  type McpLockfile,
  type McpPinChange,
  readLockfile,
} from '../mcp/mcp-lockfile.js';
import { type McpToolNaming, recordedToolNaming } from '../mcp/mcp-tool-naming.js';
import { McpPinStatus, type McpToolPin, duplicateNames } from '../mcp/mcp-tool-pin.js';
import { type CliStreams, fail } from './cli-output.js';
import { line } from './output-line.js';
import { printableName, quotedText } from './printable-text.js';
import { namingOf } from './mcp-tool-naming-flags.js';

/**
 * Where `verdict mcp pin|diff` reads a server's tools: its name, its Streamable HTTP URL, request headers, and the
 * adapter's naming options the agent loads them with.
 */
export interface McpServerAddress {
  readonly server: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly toolNaming?: McpToolNaming;
}

/** The flags of `verdict mcp pin|diff`; the naming flags are the adapter's options of the same names (ADR 0143). */
export interface McpCommandOptions extends McpToolNaming {
  readonly lockfile?: string;
  readonly header?: readonly string[];
  readonly json?: boolean;
}

/** `--header <name:value>`, repeatable: a header of every request to the server (say, a bearer for a reviewer). */
export const headerOption = {
  flags: '--header <name:value>',
  description: 'A request header, repeatable (e.g. "Authorization: Bearer …")',
  parse: (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
};

/** The headers of `--header name:value` flags; a flag without a colon is a usage error. */
export function headersOf(flags: readonly string[] = []): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    // The flag itself is not echoed: a value pasted without its name may be a credential.
    if (colon <= 0) return '--header must be name:value (a --header without a name was given)';
    headers[flag.slice(0, colon).trim()] = flag.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The tools a server lists now: the pins of those that can be pinned, the `unpinnable` ones (ADR 0150), and each name
 * it lists more than once, once (`duplicate`, ADR 0169; its listings are in neither of the others).
 */
export interface ListedMcpPins {
  readonly current: readonly McpToolPin[];
  readonly unpinnable: readonly Pick<McpToolPin, 'server' | 'tool' | 'description'>[];
  readonly duplicate: readonly Pick<McpToolPin, 'server' | 'tool'>[];
}

/**
 * The pins of every tool `address` lists now, read through `@langchain/mcp-adapters` exactly as an agent loads them
 * and named by the adapter itself with the agent's naming options (so a pin written here is the pin `pinnedMcpTools`
 * checks), and apart the tools whose definition cannot be fingerprinted. The adapter is an optional peer, imported
 * on use.
 */
export async function listedMcpPins(address: McpServerAddress): Promise<ListedMcpPins> {
  const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
  const client = new MultiServerMCPClient({
    mcpServers: { [address.server]: { transport: 'http', url: address.url, headers: { ...address.headers } } },
    ...recordedToolNaming(address.toolNaming),
  });
  try {
    const current: McpToolPin[] = [];
    const unpinnable: Pick<McpToolPin, 'server' | 'tool' | 'description'>[] = [];
    const listed = await client.getTools(address.server);
    const twice = duplicateNames(listed.map((tool) => tool.name));
    for (const tool of listed) {
      if (twice.has(tool.name)) continue;
      const pin = listedMcpToolPin(address.server, tool);
      if (pin === McpPinStatus.Unpinnable)
        unpinnable.push({ server: address.server, tool: tool.name, description: tool.description ?? '' });
      else current.push(pin);
    }
    const duplicate = [...twice].map((tool) => ({ server: address.server, tool }));
    return { current, unpinnable, duplicate };
  } finally {
    await client.close();
  }
}

/** One server against the lockfile: what `verdict mcp pin|diff` act on. */
export interface McpServerReview {
  readonly server: string;
  readonly path: string;
  readonly lock: McpLockfile;
  /** The pins of every tool the server lists now, the `unpinnable` and `duplicate` ones aside (they are `changes`). */
  readonly current: readonly McpToolPin[];
  /** What changed against this server's pins. */
  readonly changes: readonly McpPinChange[];
  /** The URL read now, and the one the lockfile records for this server when it is another (`null` otherwise). */
  readonly url: string;
  readonly urlChange: { readonly pinned: string; readonly current: string } | null;
  /** The naming the tools were listed with (see {@link namingOf}); `undefined`: as the server lists them. */
  readonly toolNaming: McpToolNaming | undefined;
  readonly json: boolean;
}

/**
 * Reads the lockfile and the server's tools and hands the comparison to `act`; a malformed `--header` is a usage
 * error (exit 2), a lockfile or server that cannot be read exits 1 naming why (`verb`: `pin`, `diff`).
 */
export async function reviewMcpServer(
  streams: CliStreams,
  [server, url]: readonly string[],
  options: McpCommandOptions,
  verb: string,
  act: (review: McpServerReview) => Promise<void> | void,
): Promise<void> {
  const json = options.json === true;
  const headers = headersOf(options.header);
  if (typeof headers === 'string') return fail(streams, json, headers, 2);
  const path = options.lockfile ?? DEFAULT_MCP_LOCKFILE;
  try {
    const lock = await readLockfile(path);
    const recorded =
      lock.servers !== undefined && Object.hasOwn(lock.servers, server!) ? lock.servers[server!] : undefined;
    // Without a URL, the one the lockfile records for the server: the operator re-pins without retyping it.
    const target = url ?? recorded?.url;
    if (target === undefined)
      return fail(
        streams,
        json,
        `${path} records no URL for ${printableName(server!)}: pass it (verdict mcp ${verb} ${printableName(server!)} <url>)`,
        2,
      );
    const toolNaming = namingOf(options, recorded?.toolNaming);
    const { current, unpinnable, duplicate } = await listedMcpPins({
      server: server!,
      url: target,
      headers,
      toolNaming,
    });
    const changes = diffLockfile(
      { ...lock, tools: lock.tools.filter((pin) => pin.server === server) },
      current,
      unpinnable,
      duplicate,
    );
    const urlChange =
      recorded !== undefined && recorded.url !== target ? { pinned: recorded.url, current: target } : null;
    await act({ server: server!, path, lock, current, changes, url: target, toolNaming, urlChange, json });
  } catch (error) {
    // The adapter's message may quote the request or a server's answer echoing it: header values never print, nor
    // does a control character the server put in its answer.
    const reason = redactedHeaderValues(String((error as Error)?.message), headers);
    fail(streams, json, `cannot ${verb} ${printableName(server!)}: ${reason}`);
  }
}

/** What replaces a header value in a printed message. */
export const REDACTED = '[redacted]';

/**
 * `message` with every `--header` value replaced by {@link REDACTED}: the whole value, each of its words and each of
 * its parts, whatever their length, as written, URL-encoded and JSON-escaped (a server that answers with the headers it
 * received as JSON). Parts are what the delimiters of HTTP's lists, parameters and cookies (`,` `;` `=`) separate,
 * quoted or not: a server may quote a token without its scheme, or one cookie's value. Every character of every
 * occurrence, overlapping ones included, is covered, and each run of covered characters becomes one
 * {@link REDACTED}: no part of a value is left beside another, and no short word is looked for inside a marker.
 */
export function redactedHeaderValues(message: string, headers: Readonly<Record<string, string>>): string {
  const secrets = Object.values(headers)
    .flatMap((value) => {
      const parts = value.split(/[\s,;=]+/);
      return [value, ...value.split(/\s+/), ...parts, ...parts.map((part) => part.replace(/^"|"$/g, ''))];
    })
    .flatMap((secret) => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])
    .filter((secret) => secret.length > 0);
  const covered = new Array<boolean>(message.length).fill(false);
  for (const secret of new Set(secrets))
    for (let at = message.indexOf(secret); at !== -1; at = message.indexOf(secret, at + 1))
      covered.fill(true, at, at + secret.length);
  let text = '';
  for (let i = 0; i < message.length; i++)
    if (!covered[i]) text += message[i];
    else if (i === 0 || !covered[i - 1]) text += REDACTED;
  return text;
}

/** The line, with its line break, that says a server's pins were recorded from another URL (`verdict mcp pin|diff`). */
export function urlChangeText(server: string, change: McpServerReview['urlChange']): string {
  if (change === null) return '';
  return line`${printableName(server)}: url changed: pinned from ${quotedText(change.pinned)}, read now from ${quotedText(change.current)}\n`;
}
