import { afterAll, describe, expect, it } from '@jest/globals';
import { compiledScript } from '@verdict/testing-kit';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runEvaluationCli } from '../../packages/evaluation/src/cli/index.js';
import { capturedCli } from '../cli/captured-cli.js';

// docs/evaluation.md §5: a suite module's optional `dispose()` is called afterwards, and the command exits 2 when the
// module cannot be loaded. A factory that opened a handle and then failed must not leave it open: the process would
// never exit. Each run is a process of its own, which ends by itself or not at all.

const repo = fileURLToPath(new URL('../../', import.meta.url));
// The bin runs the compiled package: refuse a build older than the sources (StaleBuildError) rather than test old code.
const BIN = compiledScript(new URL('../../packages/evaluation/dist/cli/main.js', import.meta.url));
const fixture = (name: string) => join(repo, 'test/fixtures/evaluation', name);
const work = mkdtempSync(join(tmpdir(), 'verdict-eval-dispose-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A live provider configuration that is never reached: the suite fails to load before any trial. */
const LIVE_ENV = {
  VERDICT_LIVE_PROVIDER: 'openai',
  VERDICT_LIVE_MODEL: 'never-called',
  VERDICT_LIVE_BASE_URL: 'http://127.0.0.1:9/v1',
  VERDICT_LIVE_API_KEY: 'sk-never-sent',
};

/**
 * Runs the bin in its own process. The timeout is no synchronisation, only a guard: a process that never exits
 * (the defect) is killed and reported as `killed` instead of hanging the test run.
 */
const verdictEval = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; killed: boolean; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: work, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : (child.exitCode ?? null), killed: child.killed, stderr }),
    );
  });

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('verdict-eval: a suite factory that fails after opening what dispose() closes', () => {
  it.each([
    ['throwing-suite.mjs', 'seeding the sandbox failed'],
    ['wrong-export-suite.mjs', 'the default export must be a SecuritySuite or a function returning one'],
  ])('run %s: dispose() is called once and the command exits 2, naming the load error', async (name, error) => {
    const run = await verdictEval(['run', fixture(name), '--out', 'report.json']);
    expect(run).toMatchObject({ killed: false, code: 2 });
    expect(occurrences(run.stderr, 'dispose called')).toBe(1);
    expect(run.stderr).toContain(error);
  });

  it.each(['throwing-suite.mjs', 'wrong-export-suite.mjs'])(
    'live %s: dispose() is called once and the command exits 2, before any trial',
    async (name) => {
      const live = await verdictEval(['live', fixture(name), '--out', 'live.json'], LIVE_ENV);
      expect(live).toMatchObject({ killed: false, code: 2 });
      expect(occurrences(live.stderr, 'dispose called')).toBe(1);
      expect(existsSync(join(work, 'live.json'))).toBe(false);
    },
  );

  it('a dispose() that fails as well is named after the load error, by its class only (exit 2)', async () => {
    const run = await capturedCli(
      () => runEvaluationCli({ argv: ['run', fixture('failing-dispose-suite.mjs'), '--out', 'report.json'] }),
      { cwd: work },
    );
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain('seeding the sandbox failed (and dispose() failed: RangeError)');
    expect(run.stderr).not.toContain('the pool was already closed');
  });

  it('a factory that builds its suite: the run succeeds and dispose() is called once afterwards (control)', async () => {
    const run = await verdictEval(['run', fixture('disposing-suite.mjs'), '--out', 'report.json']);
    expect(run).toMatchObject({ killed: false, code: 0 });
    expect(occurrences(run.stderr, 'dispose called')).toBe(1);
  });
});
