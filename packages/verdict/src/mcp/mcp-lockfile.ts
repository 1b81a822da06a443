import { readFile, writeFile } from 'node:fs/promises';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { type McpPinStatus, McpPinStatus as Status, type McpToolPin, pinStatus } from './mcp-tool-pin.js';

/** Where the lockfile is kept by default, relative to the working directory. */
export const DEFAULT_MCP_LOCKFILE = 'verdict-mcp.lock.json';

/** The lockfile kept in the repository (`verdict-mcp.lock.json`): the reviewed pins, sorted by server and tool. */
export interface McpLockfile {
  readonly version: 1;
  readonly tools: readonly McpToolPin[];
}

/** One difference between the lockfile and what the servers list now (`verdict mcp diff`). */
export interface McpPinChange {
  readonly server: string;
  readonly tool: string;
  /** `removed`: pinned, no longer listed. */
  readonly change: Exclude<McpPinStatus, 'pinned'> | 'removed';
  /** The pinned description, for a reviewer (`null` for a tool never pinned). */
  readonly pinnedDescription: string | null;
  /** The listed description (`null` for a removed tool). */
  readonly currentDescription: string | null;
}

/** A lockfile of `pins`, in a stable order so that its diff in review shows only what changed. */
export function lockfileOf(pins: readonly McpToolPin[]): McpLockfile {
  const tools = [...pins].sort((a, b) => a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool));
  return { version: 1, tools };
}

/** What changed between the lockfile and `current` (the pins of every tool listed now). */
export function diffLockfile(lock: McpLockfile, current: readonly McpToolPin[]): McpPinChange[] {
  const changes: McpPinChange[] = [];
  for (const pin of current) {
    const status = pinStatus(lock.tools, pin);
    if (status === Status.Pinned) continue;
    const pinned = lock.tools.find((each) => each.server === pin.server && each.tool === pin.tool);
    changes.push({
      server: pin.server,
      tool: pin.tool,
      change: status,
      pinnedDescription: pinned?.description ?? null,
      currentDescription: pin.description,
    });
  }
  for (const pinned of lock.tools)
    if (!current.some((pin) => pin.server === pinned.server && pin.tool === pinned.tool))
      changes.push({
        server: pinned.server,
        tool: pinned.tool,
        change: 'removed',
        pinnedDescription: pinned.description,
        currentDescription: null,
      });
  return changes;
}

/**
 * Reads a lockfile; a missing file is an empty lockfile (every tool unpinned), a malformed one a configuration error,
 * and so is a pin whose description is not the text its fingerprint pins (what a reviewer reads is what is pinned).
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
  if (parsed?.version !== 1 || !Array.isArray(parsed.tools) || !parsed.tools.every(isPin))
    throw new VerdictConfigurationError(
      `${path} is not a Verdict MCP lockfile (version 1), or a pin in it is not what its fingerprint pins: restore it from version control or remove it, then re-pin with \`verdict mcp pin\` (pin refuses to write over it).`,
    );
  return lockfileOf(parsed.tools);
}

/** Writes the lockfile as stable, reviewable JSON. */
export async function writeLockfile(path: string, lock: McpLockfile): Promise<void> {
  await writeFile(path, `${JSON.stringify(lockfileOf(lock.tools), null, 2)}\n`, 'utf8');
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
    ) && pin.descriptionFingerprint === fingerprint(pin.description as string)
  );
}
