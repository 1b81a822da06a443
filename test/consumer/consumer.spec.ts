import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readFile, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Adoption #15.2: the packages as an outside application gets them. Both packages are packed, and
 * test/consumer/app (a small Nest helpdesk with its own package.json, tsconfig and node:test e2e) is copied to a
 * directory outside the workspace, installed from the tarballs and the registry with `--strict-peer-deps` and
 * `engine-strict` (its .npmrc), compiled with `skipLibCheck: false`, and its e2e run: a bound tool in a createAgent
 * loop driven by ScriptedChatModel, a CASL deny, an approval through an `@ApprovalEndpoint()` route over HTTP, and
 * the resumed call executed once.
 *
 * The install needs the npm registry (from the local cache when it can: `--prefer-offline`). Without it the suite
 * is skipped, unless `CI` or `VERDICT_TEST_REQUIRE_REGISTRY=1` (set by .ci/run) makes it required.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./app', import.meta.url));
const run = promisify(execFile);
const required =
  process.env.VERDICT_TEST_REQUIRE_REGISTRY === '1' || !['', '0', 'false', undefined].includes(process.env.CI);

/** The environment of a command run in the consumer: nothing of the workspace's `npm test` (its npm_* config) leaks in. */
function consumerEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.has(key.toLowerCase())),
  ) as NodeJS.ProcessEnv;
}

async function sh(command: string, args: readonly string[], cwd: string, timeout = 180_000): Promise<string> {
  return (await shWithStderr(command, args, cwd, timeout)).stdout;
}

async function shWithStderr(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 180_000,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(command, args, { cwd, env: consumerEnv(), timeout, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    });
  }
}

async function registryReachable(): Promise<boolean> {
  try {
    await run('npm', ['ping'], { env: consumerEnv(), timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

const available = required || (await registryReachable());
if (!available)
  console.warn(
    'test/consumer: the npm registry is unreachable; the consumer test is skipped (CI or VERDICT_TEST_REQUIRE_REGISTRY=1 requires it)',
  );

(available ? describe : describe.skip)('an outside Nest application on the packed tarballs', () => {
  let work: string;
  let app: string;
  let installLog: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'verdict-consumer-'));
    app = join(work, 'app');
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    // `npm pack` runs each package's prepack (tsc -b): the tarballs hold a current build.
    const packed = JSON.parse(
      await sh(
        'npm',
        ['pack', '-w', 'packages/verdict', '-w', 'packages/evaluation', '--pack-destination', tarballs, '--json'],
        ROOT,
      ),
    ) as {
      name: string;
      filename: string;
    }[];
    expect(packed.map((p) => p.name).sort()).toEqual(['@verdict/evaluation', '@verdict/nestjs']);
    // The fixture's package.json names them file:../tarballs/<package>.tgz.
    for (const { name, filename } of packed)
      await rename(join(tarballs, filename), join(tarballs, `${name.slice(1).replace('/', '-')}.tgz`));
    await cp(FIXTURE, app, {
      recursive: true,
      filter: (source) => !/(^|[\\/])(node_modules|dist|package-lock\.json)$/.test(relative(FIXTURE, source)),
    });
    installLog = (
      await shWithStderr(
        'npm',
        ['install', '--strict-peer-deps', '--no-audit', '--no-fund', '--prefer-offline'],
        app,
        240_000,
      )
    ).stderr;
  }, 300_000);

  afterAll(async () => {
    if (work !== undefined && process.env.VERDICT_TEST_KEEP_CONSUMER !== '1')
      await rm(work, { recursive: true, force: true });
  });

  it('installs outside the workspace from the tarballs, not links, with a clean dependency tree', async () => {
    expect(relative(ROOT, app).startsWith('..')).toBe(true);
    for (const name of ['@verdict/nestjs', '@verdict/evaluation']) {
      const installed = join(app, 'node_modules', name);
      expect((await lstat(installed)).isSymbolicLink()).toBe(false);
      expect(JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'))).toMatchObject({
        name,
        version: '0.1.0',
      });
    }
    const lock = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; link?: boolean }>;
    };
    expect(lock.packages['node_modules/@verdict/nestjs']).toMatchObject({
      resolved: 'file:../tarballs/verdict-nestjs.tgz',
    });
    expect(lock.packages['node_modules/@verdict/nestjs']?.link).toBeUndefined();
    // Not one warning (peer, engine, deprecation) from a fresh install of the documented set-up.
    expect(installLog.split('\n').filter((line) => /^npm warn/i.test(line))).toEqual([]);
    // ELSPROBLEMS (a missing or invalid peer) makes `npm ls` exit non-zero.
    await sh('npm', ['ls', '--all'], app);
  });

  it('compiles with skipLibCheck: false', async () => {
    expect(JSON.parse(await readFile(join(app, 'tsconfig.json'), 'utf8')).compilerOptions).toMatchObject({
      skipLibCheck: false,
      strict: true,
    });
    await sh(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', '.'], app);
    expect((await readdir(join(app, 'dist'))).sort()).toEqual(['app.e2e.test.js', 'app.module.js', 'tickets.js']);
  }, 120_000);

  it('passes its own e2e: bound tool, CASL deny, approval through the guarded endpoint, one execution', async () => {
    const stdout = await sh(process.execPath, ['--test', '--test-reporter=tap', 'dist/'], app, 120_000);
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1]);
    expect({
      tests: count('tests'),
      pass: count('pass'),
      fail: count('fail'),
      skipped: count('skipped'),
      todo: count('todo'),
    }).toEqual({
      tests: 2,
      pass: 2,
      fail: 0,
      skipped: 0,
      todo: 0,
    });
  }, 120_000);

  it('runs the installed verdict-eval bin, which names itself', async () => {
    expect(await sh(join(app, 'node_modules/.bin/verdict-eval'), ['--help'], app)).toMatch(/Usage: verdict-eval/);
  });
});
