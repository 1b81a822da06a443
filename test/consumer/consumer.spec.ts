import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { copyFile, cp, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Adoption #15.2: the packages as an outside application gets them. Both packages are packed, and
 * test/consumer/app (a small Nest helpdesk with its own package.json, tsconfig and node:test e2e) is copied to a
 * directory outside the workspace, installed from the tarballs and the registry with `--strict-peer-deps` and
 * `engine-strict` (its .npmrc), compiled with `skipLibCheck: false`, and its e2e run: a bound tool in a createAgent
 * loop driven by ScriptedChatModel, a CASL deny, an approval through an `@ApprovalEndpoint()` route over HTTP, and
 * the resumed call executed once; on Node 22 or later, also an OpenAI Agents function tool (the optional peer
 * `@openai/agents`, see RUNTIMES) refusing another customer's ticket.
 *
 * The install needs the npm registry (from the local cache when it can: `--prefer-offline`). Without it the suite
 * is skipped, unless `CI` or `VERDICT_TEST_REQUIRE_REGISTRY=1` (set by .ci/run) makes it required.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./app', import.meta.url));
const run = promisify(execFile);
/** The version both packages are released at. */
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'packages/verdict/package.json'), 'utf8')) as { version: string })
  .version;
/**
 * The runtimes' peers need Node 22 or later (`ai` 7 itself, `@openai/agents` through `openai` 7), and the fixture
 * installs with `engine-strict`: only there is `@openai/agents` added and its e2e (src/agents.e2e.test.ts) copied.
 */
const RUNTIMES = Number(process.versions.node.split('.')[0]) >= 22;
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
  let sums: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'verdict-consumer-'));
    app = join(work, 'app');
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    // `npm run release` packs both (each package's prepack builds it) with their checksums.
    const released = (await sh(process.execPath, [join(ROOT, 'scripts/release.js'), '--out', tarballs], ROOT))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; version: string; file: string; sha256: string });
    expect(released.map((p) => [p.name, basename(p.file)]).sort()).toEqual([
      ['@verdict/evaluation', `verdict-evaluation-${VERSION}.tgz`],
      ['@verdict/nestjs', `verdict-nestjs-${VERSION}.tgz`],
    ]);
    sums = await readFile(join(tarballs, 'SHA256SUMS'), 'utf8');
    for (const { file, sha256 } of released)
      expect(
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
      ).toBe(sha256);
    // The fixture's package.json names them file:../tarballs/<package>.tgz.
    for (const { name, file } of released)
      await copyFile(file, join(tarballs, `${name.slice(1).replace('/', '-')}.tgz`));
    await cp(FIXTURE, app, {
      recursive: true,
      filter: (source) =>
        !/(^|[\\/])(node_modules|dist|package-lock\.json)$/.test(relative(FIXTURE, source)) &&
        (RUNTIMES || !source.endsWith('agents.e2e.test.ts')),
    });
    if (RUNTIMES) {
      const manifest = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      manifest.dependencies['@openai/agents'] = '^0.20.0';
      await writeFile(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
    }
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
        version: VERSION,
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
    expect((await readdir(join(app, 'dist'))).sort()).toEqual([
      ...(RUNTIMES ? ['agents.e2e.test.js'] : []),
      'app.e2e.test.js',
      'app.module.js',
      'tickets.js',
      'verdict-cli.module.js',
    ]);
  }, 120_000);

  it('passes its own e2e: bound tool, CASL deny, approval through the guarded endpoint, one execution; an OpenAI Agents tool', async () => {
    const stdout = await sh(process.execPath, ['--test', '--test-reporter=tap', 'dist/'], app, 120_000);
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1]);
    expect({
      tests: count('tests'),
      pass: count('pass'),
      fail: count('fail'),
      skipped: count('skipped'),
      todo: count('todo'),
    }).toEqual({
      tests: RUNTIMES ? 3 : 2,
      pass: RUNTIMES ? 3 : 2,
      fail: 0,
      skipped: 0,
      todo: 0,
    });
  }, 120_000);

  it('writes the SHA-256 of each tarball to SHA256SUMS, in sha256sum -c format', () => {
    expect(sums).toMatch(
      new RegExp(
        `^[0-9a-f]{64}  verdict-evaluation-${VERSION}\\.tgz\\n[0-9a-f]{64}  verdict-nestjs-${VERSION}\\.tgz\\n$`,
      ),
    );
  });

  it("runs the installed verdict bin against the application's own module", async () => {
    const verdict = join(app, 'node_modules/.bin/verdict');
    const verified = JSON.parse(
      await sh(verdict, ['--module', './dist/verdict-cli.module.js', 'evidence', 'verify', '--json'], app),
    ) as { intact: boolean; streams: unknown[] };
    expect(verified).toEqual({ intact: true, streams: [] });
    // `--module=<file>` works too, before any command: validate audits the same wiring (critical: none here).
    const audit = JSON.parse(
      await sh(verdict, ['--module=./dist/verdict-cli.module.js', 'validate', '--fail-on', 'critical', '--json'], app),
    ) as { capabilities: { name: string }[] };
    expect(audit.capabilities.map((capability) => capability.name).length).toBeGreaterThan(0);
    expect(await sh(verdict, ['--help'], app)).toMatch(/Usage: verdict/);
    // A command without --module is a usage error (exit 2) that names the flag.
    const refused = await run(verdict, ['evidence', 'verify'], { cwd: app, env: consumerEnv() }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --module <file>/);
  }, 120_000);

  it('runs the installed verdict-eval bin, which names itself', async () => {
    expect(await sh(join(app, 'node_modules/.bin/verdict-eval'), ['--help'], app)).toMatch(/Usage: verdict-eval/);
  });
});
