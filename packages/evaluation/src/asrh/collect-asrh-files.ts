import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { AsrhScenarioError } from './asrh-scenario.error.js';
import { AsrhTraceError } from './asrh-trace.error.js';

/** A file found under a directory: its path, and its path relative to that directory with `/` separators. */
export interface AsrhCollectedFile {
  readonly file: string;
  readonly relative: string;
}

/**
 * Every `*.yaml` / `*.yml` file under `dir`, recursively, sorted by relative path (code-unit order, so the same on
 * every machine). Symbolic links to directories are not followed.
 * @throws AsrhScenarioError when `dir` cannot be read
 */
export function collectScenarioFiles(dir: string): AsrhCollectedFile[] {
  return collect(dir, /\.ya?ml$/i, (problem, cause) => new AsrhScenarioError(dir, '$', problem, { cause }));
}

/**
 * Every `*.json` file under `dir`, recursively, sorted by relative path as {@link collectScenarioFiles} does.
 * @throws AsrhTraceError when `dir` cannot be read
 */
export function collectTraceFiles(dir: string): AsrhCollectedFile[] {
  return collect(dir, /\.json$/i, (problem, cause) => new AsrhTraceError(dir, '$', problem, { cause }));
}

function collect(dir: string, pattern: RegExp, fail: (problem: string, cause: unknown) => Error): AsrhCollectedFile[] {
  const files: AsrhCollectedFile[] = [];
  const walk = (current: string): void => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      throw fail(`directory cannot be read${code ? ` (${code})` : ''}`, cause);
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (pattern.test(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && isFile(path)))) {
        files.push({ file: path, relative: relative(dir, path).split(sep).join('/') });
      }
    }
  };
  walk(dir);
  return files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
