import { readFile, writeFile } from 'node:fs/promises';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { isToolNaming, type McpToolNaming, recordedToolNaming } from './mcp-tool-naming.js';
import {
  type McpPinStatus,
  McpPinStatus as Status,
  type McpToolPin,
  duplicateNames,
  pinStatus,
} from './mcp-tool-pin.js';
import { pinFingerprint } from './pin-fingerprint.js';

/** Where the lockfile is kept by default, relative to the working directory. */
export const DEFAULT_MCP_LOCKFILE = 'verdict-mcp.lock.json';

/** Where one server's pins were read from, and how their tools were named: `verdict mcp pin` records it beside them. */
export interface McpServerIdentity {
  readonly url: string;
  /**
   * The adapter's naming options the pins were listed with (ADR 0143); absent when the tools keep the names the
   * server lists. `verdict mcp pin|diff` without naming flags list with these.
   */
  readonly toolNaming?: McpToolNaming;
}

/** The lockfile kept in the repository (`verdict-mcp.lock.json`): the reviewed pins, sorted by server and tool. */
export interface McpLockfile {
  readonly version: 1;
  readonly tools: readonly McpToolPin[];
  /**
   * The URL each server's pins were read from (and their tool naming), by server name; absent from lockfiles
   * written before it was kept.
   */
  readonly servers?: Readonly<Record<string, McpServerIdentity>>;
}

/** One difference between the lockfile and what the servers list now (`verdict mcp diff`). */
export interface McpPinChange {
  readonly server: string;
  readonly tool: string;
  /** `removed`: pinned, no longer listed. */
  readonly change: Exclude<McpPinStatus, 'pinned'> | 'removed';
  /** The pinned description, for a reviewer (`null` for a tool never pinned). */
  readonly pinnedDescription: string | null;
  /** The listed description (`null` for a removed tool, and for a `duplicate` one: it is listed with several). */
  readonly currentDescription: string | null;
}

/**
 * A lockfile of `pins` (and the servers' identities), in a stable order so that its diff in review shows only what changed.
 *
 * @throws VerdictConfigurationError when `pins` holds two pins of one tool of one server (ADR 0169).
 */
export function lockfileOf(
  pins: readonly McpToolPin[],
  servers: Readonly<Record<string, McpServerIdentity>> = {},
): McpLockfile {
  requireOnePinPerTool(pins, 'the lockfile');
  const tools = [...pins].sort((a, b) => a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool));
  const names = Object.keys(servers).sort((a, b) => a.localeCompare(b));
  if (names.length === 0) return { version: 1, tools };
  return { version: 1, tools, servers: Object.fromEntries(names.map((name) => [name, identityOf(servers[name]!)])) };
}

/** The identity as the lockfile keeps it: the URL, and the tool naming unless it is the adapter's default. */
function identityOf({ url, toolNaming }: McpServerIdentity): McpServerIdentity {
  const naming = recordedToolNaming(toolNaming);
  return naming === undefined ? { url } : { url, toolNaming: naming };
}

/**
 * The pins of `server` in `lock`, when the lockfile records that they were read from `url`; none when it records
 * another URL — every tool of the server is then refused as unpinned, so pins reviewed for one server are never
 * reused for another that took its name. A lockfile that records no URL for the server (written before URLs were
 * kept) answers its pins: re-pin to record it.
 *
 * @example
 * const pins = serverPins(await readLockfile('verdict-mcp.lock.json'), 'files', 'https://files.example.com/mcp');
 */
export function serverPins(lock: McpLockfile, server: string, url: string): McpToolPin[] {
  const recorded = lock.servers !== undefined && Object.hasOwn(lock.servers, server) ? lock.servers[server] : undefined;
  if (recorded !== undefined && recorded.url !== url) return [];
  return lock.tools.filter((pin) => pin.server === server);
}

/**
 * What changed between the lockfile and `current` (the pins of every tool listed now); each tool of `unpinnable`,
 * listed now but whose definition cannot be fingerprinted (ADR 0150), is an `unpinnable` change, and each of
 * `duplicate`, a name the server lists more than once (ADR 0169), a `duplicate` change: never `removed`.
 */
export function diffLockfile(
  lock: McpLockfile,
  current: readonly McpToolPin[],
  unpinnable: readonly Pick<McpToolPin, 'server' | 'tool' | 'description'>[] = [],
  duplicate: readonly Pick<McpToolPin, 'server' | 'tool'>[] = [],
): McpPinChange[] {
  const pinnedOf = (listed: Pick<McpToolPin, 'server' | 'tool'>) =>
    lock.tools.find((each) => each.server === listed.server && each.tool === listed.tool);
  const changeOf = (
    tool: Pick<McpToolPin, 'server' | 'tool'>,
    change: McpPinChange['change'],
    currentDescription: string | null,
    pinnedDescription = pinnedOf(tool)?.description ?? null,
  ): McpPinChange => ({ server: tool.server, tool: tool.tool, change, pinnedDescription, currentDescription });
  const changes: McpPinChange[] = [];
  for (const pin of current) {
    const status = pinStatus(lock.tools, pin);
    if (status !== Status.Pinned) changes.push(changeOf(pin, status, pin.description));
  }
  for (const tool of unpinnable) changes.push(changeOf(tool, Status.Unpinnable, tool.description));
  for (const tool of duplicate) changes.push(changeOf(tool, Status.Duplicate, null));
  const listed = [...current, ...unpinnable, ...duplicate];
  for (const pinned of lock.tools)
    if (!listed.some((tool) => tool.server === pinned.server && tool.tool === pinned.tool))
      changes.push(changeOf(pinned, 'removed', null, pinned.description));
  return changes;
}

/**
 * Reads a lockfile; a missing file is an empty lockfile (every tool unpinned), a malformed one a configuration error,
 * and so is a pin whose description is not the text its fingerprint pins (what a reviewer reads is what is pinned),
 * and a tool of a server pinned twice (which pin decides?, ADR 0169).
 */
export async function readLockfile(path: string): Promise<McpLockfile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return lockfileOf([]);
    throw error;
  }
  const parsed = parseJson(text);
  if (
    parsed?.version !== 1 ||
    !Array.isArray(parsed.tools) ||
    !parsed.tools.every(isPin) ||
    !(parsed.servers === undefined || areIdentities(parsed.servers))
  )
    throw new VerdictConfigurationError(
      `${path} is not a Verdict MCP lockfile (version 1), or a pin in it is not what its fingerprint pins: restore it from version control or remove it, then re-pin with \`verdict mcp pin\` (pin refuses to write over it).`,
    );
  requireOnePinPerTool(parsed.tools, path);
  return lockfileOf(parsed.tools, parsed.servers);
}

/** Writes the lockfile as stable, reviewable JSON. */
export async function writeLockfile(path: string, lock: McpLockfile): Promise<void> {
  await writeFile(path, `${JSON.stringify(lockfileOf(lock.tools, lock.servers), null, 2)}\n`, 'utf8');
}

/**
 * @throws VerdictConfigurationError naming the first tool of a server that `pins` (of the lockfile `where`) pins
 *   more than once, with `server` and `tool` in its context: one pin decides a tool (ADR 0169).
 */
function requireOnePinPerTool(pins: readonly McpToolPin[], where: string): void {
  const [pair] = duplicateNames(pins.map(({ server, tool }) => JSON.stringify([server, tool])));
  if (pair === undefined) return;
  const [server, tool] = JSON.parse(pair) as [string, string];
  throw new VerdictConfigurationError(
    `${where} pins the tool ${JSON.stringify(tool)} of the server ${JSON.stringify(server)} more than once: one pin decides a tool. Keep the reviewed pin alone, or restore the lockfile from version control, then re-pin the server with \`verdict mcp pin\` (pin refuses to write over it).`,
    { server, tool },
  );
}

function parseJson(text: string): Partial<McpLockfile> | null {
  try {
    return JSON.parse(text) as Partial<McpLockfile> | null;
  } catch {
    return null;
  }
}

function isPin(value: unknown): value is McpToolPin {
  if (typeof value !== 'object' || value === null) return false;
  const pin = value as Record<string, unknown>;
  return (
    ['server', 'tool', 'descriptionFingerprint', 'inputSchemaFingerprint', 'description'].every(
      (key) => typeof pin[key] === 'string',
    ) && pin.descriptionFingerprint === pinFingerprint(pin.description as string)
  );
}

function areIdentities(value: unknown): value is Record<string, McpServerIdentity> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (identity) =>
      typeof identity === 'object' &&
      identity !== null &&
      typeof (identity as McpServerIdentity).url === 'string' &&
      ((identity as McpServerIdentity).toolNaming === undefined ||
        isToolNaming((identity as McpServerIdentity).toolNaming)),
  );
}
