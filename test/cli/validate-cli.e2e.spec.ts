import { afterAll, describe, expect, it } from '@jest/globals';
import { type DynamicModule, Module } from '@nestjs/common';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { compiledScript, runNodeScript } from '@verdict/testing-kit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabModule } from '../../apps/storefront-lab/src/lab.module.js';
import { miswiredAppModule } from '../../libs/testing/src/fixtures/miswired-app.module.js';
import { FailingInit, RefusedWiring } from '../../libs/testing/src/fixtures/unbootable-app.module.js';
import { capturedCli } from './captured-cli.js';

/** A compiled CLI entry; refuses a build older than the sources (StaleBuildError): `npm run build` first. */
const compiled = (path: string) => compiledScript(new URL(`../../${path}`, import.meta.url));

const directory = mkdtempSync(join(tmpdir(), 'verdict-validate-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs a compiled CLI in its own process (what `npm run verdict -- …` runs after building), outside a test environment. */
const run = (entry: string, ...args: string[]) =>
  runNodeScript(compiled(entry), args, {
    env: { ...process.env, NODE_ENV: 'production', LAB_DATABASE: join(directory, 'lab.sqlite') },
  });

const lab = (...args: string[]) => run('apps/storefront-lab/dist/cli.js', ...args);
/** The `verdict` bin (its dist checked current) on a compiled module of the testing kit's fixtures. */
const verdictBin = (module: string, ...args: string[]) => {
  compiled('packages/verdict/dist/cli/verdict-bin.js');
  return runNodeScript(
    fileURLToPath(new URL('../../packages/verdict/bin/verdict.js', import.meta.url)),
    ['--module', compiled(`libs/testing/dist/fixtures/${module}`), ...args],
    { env: { ...process.env, NODE_ENV: 'production' } },
  );
};
const miswired = (...args: string[]) => run('libs/testing/dist/fixtures/miswired-cli.js', ...args);

/**
 * `module`'s CLI run in this process as `run` runs its compiled entry (outside a test environment: NODE_ENV is
 * production while it runs), answering as `run` does. One run of each entry goes through the compiled bin.
 */
const inProcess =
  (module: () => DynamicModule) =>
  (...argv: string[]) =>
    capturedCli(
      () => {
        @Module({ imports: [module(), VerdictCliModule] })
        class CliModule {}
        return runVerdictCli(CliModule, { argv });
      },
      { env: { ...process.env, NODE_ENV: 'production' } },
    );
/** The module of the lab's `cli.ts` for `validate` (which reads no data: an empty in-memory database). */
const inProcessLab = inProcess(() => LabModule.forRoot({ database: ':memory:', mustExist: true }));
/** The module of `unbootable-app.module.js`'s `FailingInit`: a provider's `onModuleInit` throws. */
const failingInitModule = () => FailingInit;
/** The module of `miswired-cli.js`. */
const inProcessMiswired = inProcess(miswiredAppModule);

describe('verdict validate (CLI)', () => {
  it('finds nothing on the lab and exits 0, listing its capabilities', async () => {
    // End to end: the lab's compiled CLI in its own process; the other cases of the lab run in this one.
    const { code, stdout, stderr } = await lab('validate', '--json');

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ findings: [], failOn: 'low', failed: false });
    expect(report.capabilities.map((capability: { name: string }) => capability.name)).toEqual(
      expect.arrayContaining([
        'orders.view',
        'orders.cancel',
        'shipments.refresh',
        'support.escalate',
        'orders.refund',
      ]),
    );
    expect(
      report.capabilities.find((capability: { name: string }) => capability.name === 'support.escalate').gates,
    ).toContain('atMostOnce');
    // The storefront declares which capabilities change state; every one that does is at most once.
    const declared = (name: string) =>
      report.capabilities.find((capability: { name: string }) => capability.name === name) as {
        mutates: boolean;
        gates: string[];
      };
    for (const name of ['orders.cancel', 'support.escalate']) {
      expect(declared(name).mutates).toBe(true);
      expect(declared(name).gates).toContain('atMostOnce');
    }
    for (const name of ['orders.view', 'shipments.refresh']) expect(declared(name).mutates).toBe(false);
  });

  it('prints tables for people', async () => {
    const { code, stdout } = await inProcessLab('validate');

    expect(code).toBe(0);
    expect(stdout).toContain('Capabilities\ncapability');
    expect(stdout).toContain('Findings\n(none)');
    expect(stdout).toContain('0 finding(s); ok (--fail-on low)');
  });

  it('exits 1 on the miswired application, at every threshold it reaches', async () => {
    // End to end: the miswired application's compiled CLI in its own process, then the thresholds in this one.
    const all = await miswired('validate', '--json');
    expect(all.code).toBe(1);
    const report = JSON.parse(all.stdout);
    expect(report.failed).toBe(true);
    expect(report.findings).toHaveLength(19);

    // The miswired app's findings are low to critical: --fail-on critical still fails, as critical ones exist.
    expect((await inProcessMiswired('validate', '--fail-on', 'critical')).code).toBe(1);
    // A remote zone declared local drops the PII finding; the others remain.
    const local = JSON.parse(
      (await inProcessMiswired('validate', '--json', '--local-zone', 'local-machine', '--local-zone', 'public-cloud'))
        .stdout,
    );
    expect(local.findings.map((finding: { code: string }) => finding.code)).not.toContain('pii-to-remote-zone');
  });

  it('exits 0 when no finding reaches --fail-on', async () => {
    // The lab has no findings at all, at any threshold.
    expect((await inProcessLab('validate', '--fail-on', 'critical')).code).toBe(0);
  });

  it('exits 3 when the audit itself fails, apart from findings (control: the same app read whole exits 1)', async () => {
    // The DataSource of the app's rate-limit store holds a `migrations` table another tool wrote: unreadable.
    const broken = await verdictBin('unreadable-migrations-app.module.js', 'validate', '--json');
    expect({ code: broken.code, stdout: broken.stdout }).toEqual({ code: 3, stdout: '' });
    expect(JSON.parse(broken.stderr)).toEqual({ error: expect.stringMatching(/^the audit failed: .*no such column/) });

    // The same application without that table: the audit runs, and its findings exit 1.
    const readable = await verdictBin(
      'unreadable-migrations-app.module.js',
      '--export',
      'Readable',
      'validate',
      '--json',
    );
    expect(readable.code).toBe(1);
    expect(JSON.parse(readable.stdout)).toMatchObject({
      failed: true,
      findings: expect.arrayContaining([expect.objectContaining({ code: 'pending-migrations' })]),
    });
  });

  it('exits 3 when the application cannot start, as when the audit fails (control: other commands still exit 1)', async () => {
    // End to end: a provider factory that throws (Nest would end the process) in the bin's own process.
    const refused = await verdictBin('unbootable-app.module.js', 'validate', '--json');
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 3, stdout: '' });
    // Nest logs the provider's error before it; the audit's report is the last line.
    const last = refused.stderr.trimEnd().split('\n').at(-1)!;
    expect(JSON.parse(last)).toEqual({ error: 'the audit failed: connect ECONNREFUSED 127.0.0.1:5432' });

    // What a half-started application opened (a pool's handle) does not keep the bin from ending.
    const held = await verdictBin('unbootable-app.module.js', '--export', 'HeldOpen', 'validate');
    expect(held).toMatchObject({ code: 3, stderr: expect.stringMatching(/error: the audit failed: cache warm-up/) });

    // An application's own lifecycle hook that throws, in this process: the error line alone.
    const hook = await inProcess(failingInitModule)('validate', '--json');
    expect(hook).toEqual({
      code: 3,
      stdout: '',
      stderr: `${JSON.stringify({ error: 'the audit failed: cache warm-up failed: connect ECONNREFUSED 127.0.0.1:6379' })}\n`,
    });
    expect((await inProcess(failingInitModule)('validate')).stderr).toBe(
      'error: the audit failed: cache warm-up failed: connect ECONNREFUSED 127.0.0.1:6379\n',
    );

    // Verdict's own boot check refusing the wiring is unsafe wiring, exit 1 as a finding, never a failed audit's 3.
    const wiring = await inProcess(() => RefusedWiring)('validate', '--json', '--fail-on', 'critical');
    expect({ code: wiring.code, stdout: wiring.stdout }).toEqual({ code: 1, stdout: '' });
    expect(JSON.parse(wiring.stderr.trimEnd().split('\n').at(-1)!)).toEqual({
      error: expect.stringMatching(/^Verdict refused the wiring at boot: `actorKey` is a string, not a function/),
    });

    // Control: another command keeps its documented exit code on the same failure.
    expect((await inProcess(failingInitModule)('evidence', 'verify')).code).toBe(1);
  });

  it('exits 2 on a usage error', async () => {
    // Refused while the arguments are parsed, before the application starts: commander's usage error, as for a flag.
    const bad = await inProcessLab('validate', '--fail-on', 'severe', '--json');
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: option '--fail-on <severity>' argument 'severe' is invalid. --fail-on must be one of low, medium, high, critical.\n(run verdict --help for usage)\n",
    });
    expect((await inProcessLab('validate', '--no-such-flag')).code).toBe(2);
  });
});
