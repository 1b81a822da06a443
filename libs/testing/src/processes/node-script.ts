import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertCurrentBuild } from './current-build.js';

/** The exit code of a script run in its own node process, and what it printed. */
export interface NodeScriptResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where and with which environment the script runs. Default: this process's directory and environment. */
export interface NodeScriptOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** The path of a compiled script; refuses a build older than its sources (StaleBuildError), which would run old code. */
export function compiledScript(script: URL): string {
  assertCurrentBuild(script);
  return fileURLToPath(script);
}

/** The compiled testing-kit fixture script `name` (`libs/testing/dist/fixtures/<name>`), as `compiledScript`. */
export function testingKitFixture(name: string): string {
  return compiledScript(new URL(`../../dist/fixtures/${name}`, import.meta.url));
}

/**
 * Runs `node <script> <args>` in its own process. Resolves with its exit code and output whatever the code (a
 * failing CLI is what many tests assert); never rejects.
 */
export function runNodeScript(
  script: string,
  args: readonly string[],
  options: NodeScriptOptions = {},
): Promise<NodeScriptResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
