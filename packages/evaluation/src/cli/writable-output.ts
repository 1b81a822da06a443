import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Why a report cannot be written to `file` (a folder, a name ending in a separator, a file that exists and is not
 * writable, a folder for it that is missing or not writable), or `null` when it can. Checked before a run starts,
 * so that a run is never done for nothing: a live run would have spent its tokens by the time it writes.
 */
export function unwritableOutput(file: string): string | null {
  const path = resolve(file);
  if (/[\\/]$/.test(file)) return `${file} is a directory`;
  try {
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isDirectory() === true) return `${file} is a directory`;
    if (existing !== undefined) accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (error) {
    return `cannot write ${file}: ${(error as Error).message}`;
  }
}
