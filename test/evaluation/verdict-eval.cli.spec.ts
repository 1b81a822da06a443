import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asrhFixturesDirectory, compiledScript, runNodeScript } from '@verdict/testing-kit';
import { runEvaluationCli } from '../../packages/evaluation/src/cli/index.js';
import { capturedCli } from '../cli/captured-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
// The bin runs the compiled package: refuse a build older than the sources (StaleBuildError) rather than test old code.
const BIN = compiledScript(new URL('../../packages/evaluation/dist/cli/main.js', import.meta.url));
const SUITE = join(repo, 'test/fixtures/evaluation/sample-suite.mjs');
const ASRH = asrhFixturesDirectory();
const TRAJECTORY = join(repo, 'test/fixtures/trajectory');
const work = mkdtempSync(join(tmpdir(), 'verdict-eval-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the built `verdict-eval` bin in its own process. */
const verdictEval = (args: string[], env: Record<string, string> = {}) =>
  runNodeScript(BIN, args, { cwd: work, env: { ...process.env, ...env } });

/**
 * The same program in this process, in the same directory, answering as `verdictEval` does (without the seconds a new
 * process takes): for every case but one run of each command, which the bin runs end to end.
 */
const inProcessEval = (args: string[]) => capturedCli(() => runEvaluationCli({ argv: args }), { cwd: work });

describe('verdict-eval', () => {
  it('runs a suite, keeps its report as a baseline, and passes a compare without changes', async () => {
    // End to end: run, baseline write and compare by the bin, each in its own process.
    const run = await verdictEval(['run', SUITE, '--out', 'report.json']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('attack: 1 passed, 0 failed, 0 errors, 0 pending, pass rate 100.0%');
    expect(run.stdout).toContain('utility: 1 passed');
    expect((await verdictEval(['baseline', 'write', 'report.json', 'baseline.json'])).code).toBe(0);

    const compare = await verdictEval(['compare', 'report.json', 'baseline.json']);
    expect(compare).toMatchObject({ code: 0, stdout: expect.stringContaining('OK: no blocking change') });
  });

  it('refuses a report it could not write before running the suite (exit 2), and writes to a folder that exists (control)', async () => {
    const missing = await inProcessEval(['run', SUITE, '--out', join('no-such-folder', 'report.json')]);
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('cannot write') });
    const folder = await inProcessEval(['run', SUITE, '--out', work]);
    expect(folder).toMatchObject({ code: 2, stderr: expect.stringContaining('is a directory') });
    const newFolder = await inProcessEval(['run', SUITE, '--out', 'reports/']);
    expect(newFolder).toMatchObject({ code: 2, stderr: expect.stringContaining('is a directory') });

    expect((await inProcessEval(['run', SUITE, '--out', join(work, 'written.json')])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(work, 'written.json'), 'utf8'))).toHaveProperty('cases');
  });

  it('exits 1 on a blocking change, in every format', async () => {
    await inProcessEval(['run', SUITE, '--out', 'good.json']);
    await inProcessEval(['baseline', 'write', 'good.json', 'good-baseline.json']);
    // The suite module reads SAMPLE_REGRESSION when it is imported: a process of its own.
    await verdictEval(['run', SUITE, '--out', 'regressed.json'], { SAMPLE_REGRESSION: '1' });

    const console = await inProcessEval(['compare', 'regressed.json', 'good-baseline.json']);
    expect(console.code).toBe(1);
    expect(console.stdout).toContain(
      'BLOCKING  behavioural_regression: attack case foreign-order-view: passed (v1) → failed (v1)',
    );

    const github = await inProcessEval(['compare', 'regressed.json', 'good-baseline.json', '--format', 'github']);
    expect(github).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^::error file=regressed\.json,title=behavioural_regression::/),
    });

    const junit = await inProcessEval(['compare', 'regressed.json', 'good-baseline.json', '--format', 'junit']);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain(
      '<testcase classname="sample-suite" name="attack/foreign-order-view"><failure type="behavioural_regression"',
    );

    const sarif = await inProcessEval(['compare', 'regressed.json', 'good-baseline.json', '--format', 'sarif']);
    expect(sarif.code).toBe(1);
    const log = JSON.parse(sarif.stdout);
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0].results).toEqual([
      expect.objectContaining({
        ruleId: 'behavioural_regression',
        level: 'error',
        locations: [
          expect.objectContaining({ logicalLocations: [expect.objectContaining({ name: 'foreign-order-view' })] }),
        ],
      }),
    ]);
  });

  it('refuses an unknown format and an invalid report with exit code 2, changing nothing', async () => {
    await inProcessEval(['run', SUITE, '--out', 'r.json']);
    expect((await inProcessEval(['compare', 'r.json', 'r.json', '--format', 'xml'])).code).toBe(2);
    const tampered = readFileSync(join(work, 'r.json'), 'utf8').replace('"passed": 1', '"passed": 2');
    writeFileSync(join(work, 'tampered.json'), tampered);
    const invalid = await inProcessEval(['baseline', 'write', 'tampered.json', 'never.json']);
    expect(invalid.code).toBe(2);
    expect(() => readFileSync(join(work, 'never.json'))).toThrow();
  });

  it('refuses a --bound-threshold that is not a share written in decimal (exit 2), and takes 0.05 (control)', async () => {
    await inProcessEval(['run', SUITE, '--out', 'threshold.json']);
    const compare = (threshold: string) =>
      inProcessEval(['compare', 'threshold.json', 'threshold.json', '--bound-threshold', threshold]);
    for (const threshold of ['5e-2', '0x0', '.05', '-0', ' 0.05', '', '1.5'])
      expect(await compare(threshold)).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining(
          `--bound-threshold must be a share from 0 to 1 in decimal (e.g. 0.05), not "${threshold}"`,
        ),
      });
    expect(await compare('0.05')).toMatchObject({ code: 0, stdout: expect.stringContaining('OK: no blocking change') });
  });

  it('names itself verdict-eval in its help, and exits 0', async () => {
    const help = await verdictEval(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: verdict-eval \[options\] \[command\]/);
    expect(help.stdout).toMatch(/compare \[options\] <current> <baseline>/);
    expect((await inProcessEval(['baseline', '--help'])).stdout).toMatch(
      /^Usage: verdict-eval baseline \[options\] \[command\]/,
    );
  });

  it.each([
    [[], 'Usage: verdict-eval [options] [command]'],
    [['bogus'], "unknown command 'bogus'"],
    [['baseline', 'bogus'], "unknown command 'bogus'"],
    [['run', 'suite.mjs', '--bogus'], "unknown option '--bogus'"],
    [['compare', 'r.json'], "missing required argument 'baseline'"],
  ])('says what is wrong with %j on stderr and exits 2 (usage error)', async (args, message) => {
    const result = await inProcessEval(args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
  });

  it('asrh --json: every scenario against every trace, relative paths, trajectory evidence as an object', async () => {
    const result = await verdictEval(['asrh', TRAJECTORY, '--trace', TRAJECTORY, '--json']);
    const runs = JSON.parse(result.stdout) as Array<{
      scenario: string;
      trace: string;
      result: string;
      assertions: Array<{ id: string; result: string; evidence: any }>;
    }>;

    expect(runs.map((run) => [run.scenario, run.trace, run.result])).toEqual([
      ['customer_export_exfiltration.scenario.yaml', 'customer_export_exfiltration_attack.json', 'fail'],
      ['customer_export_exfiltration.scenario.yaml', 'customer_export_exfiltration_control.json', 'pass'],
    ]);
    const failure = runs[0].assertions.find((assertion) => assertion.id === 'forbidden_state_not_reached')!;
    expect(failure).toMatchObject({
      result: 'fail',
      evidence: { predicate_id: expect.any(String), transition_index: expect.any(Number) },
    });
    expect(result.code).toBe(1);
  });

  it('asrh: the harness scenarios against their passing traces, as a table', async () => {
    const result = await inProcessEval([
      'asrh',
      join(ASRH, 'scenarios/goal_hijack/outbound_email_exfiltration_001.yaml'),
      '--trace',
      join(ASRH, 'examples/traces/goal_hijack/outbound_email_exfiltration_001_pass.json'),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /outbound_email_exfiltration_001\.yaml\s+outbound_email_exfiltration_001_pass\.json\s+pass/,
    );
  });
});
