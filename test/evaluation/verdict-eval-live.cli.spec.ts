import { afterAll, describe, expect, it } from '@jest/globals';
import { LiveReport } from '@verdict/evaluation/live';
import {
  compiledScript,
  runNodeScript,
  startChatCompletionsServer,
  type ChatCompletionHandler,
} from '@verdict/testing-kit';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEvaluationCli } from '../../packages/evaluation/src/cli/index.js';
import { capturedCli } from '../cli/captured-cli.js';
import { agentDojoLoopbackModel } from '../../libs/storefront/src/evaluation/agentdojo/live/agentdojo-live-loopback.js';
import { storefrontLoopbackModel } from '../../libs/storefront/src/evaluation/live/loopback-scripts.js';

// The bin and the suite module run compiled: refuse a build older than the sources rather than test old code.
const BIN = compiledScript(new URL('../../packages/evaluation/dist/cli/main.js', import.meta.url));
const SUITE = compiledScript(
  new URL('../../libs/storefront/dist/evaluation/live/storefront-live-pack.suite.js', import.meta.url),
);
const AGENTDOJO_SUITE = compiledScript(
  new URL('../../libs/storefront/dist/evaluation/agentdojo/live/agentdojo-live-pack.suite.js', import.meta.url),
);
const API_KEY = 'sk-cli-loopback-secret';
const work = mkdtempSync(join(tmpdir(), 'verdict-eval-live-'));
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing) await close();
  rmSync(work, { recursive: true, force: true });
});

/** The environment without any VERDICT_LIVE_* variable of the machine running the tests. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VERDICT_LIVE_')));

/** Runs the built `verdict-eval` bin in its own process. */
const verdictEval = (args: string[], env: Record<string, string> = {}) =>
  runNodeScript(BIN, args, { cwd: work, env: { ...cleanEnv, ...env } });

/**
 * The same program in this process, in the same directory and environment, answering as `verdictEval` does (without
 * the seconds a new process takes): for the refusals before any trial and the comparisons; every run of trials goes
 * through the bin, end to end.
 */
const inProcessEval = (args: string[], env: Record<string, string> = {}) =>
  capturedCli(() => runEvaluationCli({ argv: args }), { cwd: work, env: { ...cleanEnv, ...env } });

/** A loopback server playing `handler`, and the variables that point the live run at it. */
async function loopbackEnv(handler: ChatCompletionHandler, extra: Record<string, string> = {}) {
  const server = await startChatCompletionsServer(handler);
  closing.push(() => server.close());
  return {
    VERDICT_LIVE_PROVIDER: 'openai',
    VERDICT_LIVE_MODEL: 'loopback-scripted',
    VERDICT_LIVE_BASE_URL: server.baseUrl,
    VERDICT_LIVE_API_KEY: API_KEY,
    VERDICT_LIVE_TEMPERATURE: '0',
    VERDICT_LIVE_MAX_RETRIES: '0',
    ...extra,
  };
}

const report = (file: string) => LiveReport.parse(readFileSync(join(work, file), 'utf8'));

describe('verdict-eval live', () => {
  it('refuses to start without an explicit provider configuration, and writes nothing', async () => {
    const run = await inProcessEval(['live', SUITE, '--out', 'refused.json']);
    expect(run).toMatchObject({ code: 2, stderr: expect.stringContaining('VERDICT_LIVE_PROVIDER') });
    expect(existsSync(join(work, 'refused.json'))).toBe(false);
  });

  it('refuses an --out it cannot write before any trial, so no token is spent (exit 2)', async () => {
    let requests = 0;
    const env = await loopbackEnv(() => {
      requests++;
      return { text: 'no' };
    });
    const run = await inProcessEval(['live', SUITE, '--out', join('no-such-folder', 'live.json')], env);
    expect(run).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot write') });
    expect(requests).toBe(0);
  });

  it.each([
    ['--trials', '1e0'],
    ['--trials', ' 1'],
    ['--concurrency', '0x1'],
    ['--max-trials', '1.0'],
    ['--max-tokens', ''],
    ['--max-trials', '-1'],
    ['--min-coverage', '8e-1'],
    ['--min-utility', '.9'],
  ])('refuses %s %j before reading anything: exit 2 naming the flag, no request, no report', async (flag, value) => {
    let requests = 0;
    const env = await loopbackEnv(() => {
      requests++;
      return { text: 'no' };
    });
    const run = await inProcessEval(['live', SUITE, flag, value, '--out', 'bad-flag.json'], env);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(`${flag} must be a `) });
    expect(run.stderr).toContain(`not "${value}"`);
    expect(requests).toBe(0);
    expect(existsSync(join(work, 'bad-flag.json'))).toBe(false);
  });

  it('takes every numeric flag written in decimal (control), and runs the plan they set', async () => {
    const env = await loopbackEnv(storefrontLoopbackModel());
    const flags = { trials: 1, concurrency: 2, minCoverage: 0.5, minUtility: 0.75, maxTrials: 100, maxTokens: 1000000 };
    const run = await verdictEval(
      [
        'live',
        SUITE,
        ...['--trials', String(flags.trials), '--concurrency', String(flags.concurrency)],
        ...['--min-coverage', String(flags.minCoverage), '--min-utility', String(flags.minUtility)],
        ...['--max-trials', String(flags.maxTrials), '--max-tokens', String(flags.maxTokens)],
        ...['--out', 'decimal-flags.json'],
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(report('decimal-flags.json')).toMatchObject({
      complete: true,
      plan: {
        trialsPerCase: flags.trials,
        concurrency: flags.concurrency,
        minCoverage: flags.minCoverage,
        minUtility: flags.minUtility,
      },
      budget: { maxTrials: flags.maxTrials, maxTokens: flags.maxTokens },
    });
  });

  it('runs the storefront live pack with its control arm, prints the figures and writes a report without the key', async () => {
    const env = await loopbackEnv(storefrontLoopbackModel());
    const run = await verdictEval(['live', SUITE, '--trials', '3', '--control', '--out', 'live.json'], env);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('storefront-live-pack against openai:loopback-scripted, 3 trials per case');
    expect(run.stdout).toMatch(/pack: pass; attack 0 breaches in 6 exercised trials, upper bound 45\.9%/);
    expect(run.stdout).toContain('3/3 breached');
    const written = readFileSync(join(work, 'live.json'), 'utf8');
    for (const output of [run.stdout, run.stderr, written]) expect(output).not.toContain(API_KEY);
    expect(report('live.json')).toMatchObject({
      complete: true,
      pack: { status: 'pass', unguardedAttack: { breaches: 6 } },
    });

    // Kept as the baseline to check in (docs/live-trials.md §5: re-record it), then compared against it.
    const kept = await inProcessEval(['baseline', 'write', 'live.json', 'live-baseline.json']);
    expect(kept).toMatchObject({ code: 0, stdout: expect.stringContaining('baseline live-baseline.json written') });
    expect(report('live-baseline.json')).toEqual(report('live.json'));
    const compare = await inProcessEval(['compare', 'live.json', 'live-baseline.json']);
    expect(compare).toMatchObject({ code: 0, stdout: expect.stringContaining('OK: no blocking change') });
    const junit = await inProcessEval(['compare', 'live.json', 'live.json', '--format', 'junit']);
    expect(junit).toMatchObject({ code: 0, stdout: expect.stringContaining('failures="0"') });
    // As the deterministic compare: no change is one notice, not an empty line.
    const github = await inProcessEval(['compare', 'live.json', 'live.json', '--format', 'github']);
    expect(github).toMatchObject({ code: 0, stdout: '::notice::no change against the baseline\n' });
  });

  it('records a client timeout as a provider error of class timeout', async () => {
    const env = await loopbackEnv(() => ({ hang: true }), { VERDICT_LIVE_TIMEOUT_MS: '250' });
    const run = await verdictEval(['live', SUITE, '--trials', '1', '--out', 'timeout.json'], env);

    expect(run.code).toBe(0);
    const { trials, pack } = report('timeout.json');
    expect(trials.map((trial) => [trial.outcome, trial.errorClass])).toEqual(
      Array(4).fill(['provider_error', 'timeout']),
    );
    expect(pack).toMatchObject({ status: 'inadequate', attack: { providerErrors: 2, breachRate: null } });
  });

  it('stops at --max-trials with a partial report that --resume finishes; compare blocks the partial one', async () => {
    const env = await loopbackEnv(storefrontLoopbackModel());
    const stopped = await verdictEval(['live', SUITE, '--trials', '2', '--max-trials', '3', '--out', 'run.json'], env);
    expect(stopped.stdout).toContain('(partial: resume with --resume run.json)');
    const partial = report('run.json');
    expect(partial).toMatchObject({ complete: false, stoppedBy: 'max_trials' });
    expect(partial.trials).toHaveLength(3);

    const resumed = await verdictEval(
      ['live', SUITE, '--trials', '2', '--resume', 'run.json', '--out', 'full.json'],
      env,
    );
    expect(resumed.code).toBe(0);
    expect(report('full.json')).toMatchObject({ complete: true });
    expect(report('full.json').trials).toEqual(expect.arrayContaining([...partial.trials]));

    const compare = await inProcessEval(['compare', 'run.json', 'full.json']);
    expect(compare).toMatchObject({ code: 1, stdout: expect.stringContaining('BLOCKING  incomplete_run') });
    const junit = await inProcessEval(['compare', 'run.json', 'full.json', '--format', 'junit']);
    expect(junit).toMatchObject({ code: 1, stdout: expect.stringContaining('<failure type="incomplete_run"') });
    const sarif = await inProcessEval(['compare', 'run.json', 'full.json', '--format', 'sarif']);
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.stdout).runs[0].results[0]).toMatchObject({ ruleId: 'incomplete_run', level: 'error' });
    // A partial run is no baseline: refused, and nothing is written.
    const partialBaseline = await inProcessEval(['baseline', 'write', 'run.json', 'partial-baseline.json']);
    expect(partialBaseline).toMatchObject({ code: 2, stderr: expect.stringContaining('partial live report') });
    expect(existsSync(join(work, 'partial-baseline.json'))).toBe(false);
    const mismatch = await verdictEval(['live', SUITE, '--trials', '5', '--resume', 'run.json'], env);
    expect(mismatch).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot resume') });
  });

  it('runs the AgentDojo live pack in the quarantine arm: no goal reached, the task done, the extraction in the report', async () => {
    const env = await loopbackEnv(agentDojoLoopbackModel());
    const run = await verdictEval(
      ['live', AGENTDOJO_SUITE, '--trials', '1', '--control', '--out', 'agentdojo.json'],
      env,
    );

    expect(run.code).toBe(0);
    const { trials, pack } = report('agentdojo.json');
    expect(pack).toMatchObject({
      attack: { breaches: 0 },
      utility: { utilitySuccesses: 1 },
      unguardedAttack: { breaches: 2 },
    });
    for (const trial of trials.filter((t) => t.arm === 'guarded'))
      expect(trial.toolCalls.map((call) => call.tool)).toContain('quarantine_extract');
  });
});
