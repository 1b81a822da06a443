import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Why a report cannot be written to `file` (its folder is missing or not writable, or the file is a folder), or
 * `null` when it can. Checked before a run starts, so that a run is never done for nothing: a live run would have
 * spent its tokens by the time it writes.
 */
export function unwritableOutput(file: string): string | null {
  const path = resolve(file);
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) return `${file} is a directory`;
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (error) {
    return `cannot write ${file}: ${(error as Error).message}`;
  }
}
