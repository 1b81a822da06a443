import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
 * the resumed call executed once; then, with the optional runtime peers installed (see RUNTIME_PEERS), a Vercel AI
 * SDK tool in a `generateText` loop driven by the SDK's own mock model, and an OpenAI Agents function tool in a
 * `Runner.run()` driven by a scripted model, each refusing another customer's ticket and showing the customer's own.
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
 * The optional peers of the runtime subpaths (`@verdict/nestjs/ai-sdk`, `@verdict/nestjs/openai-agents`), at the
 * ranges the package declares, which a second `npm install --strict-peer-deps` adds to the installed application.
 */
const RUNTIME_PEERS = ['ai', '@openai/agents'] as const;
/**
 * Why the runtimes' install relaxes engine checks on Node 20, and for nothing else. `ai` 7 and the packages it
 * depends on (`@ai-sdk/gateway`, `@ai-sdk/provider`, `@ai-sdk/provider-utils`) declare `engines.node >= 22`, and so
 * does `openai` 7, which `@openai/agents` depends on; with `engine-strict` npm refuses them on Node 20, although
 * they run there (this workspace's own AI SDK and Agents specs do, on Node 20). npm cannot relax `engine-strict`
 * per package, so the install is in two steps: the first installs everything else — both of our packages
 * included — with the fixture's `engine-strict`, so an engine our packages or the LangChain stack declared
 * against this Node still fails it; the second adds the runtime peers with `--strict-peer-deps` (peers stay
 * strict) and, below Node 22 only, `--engine-strict=false`, and the test then requires every warning of that
 * install to be an EBADENGINE of a package named here that asks for Node 22 or later. On Node 22 or later
 * both steps are engine-strict.
 */
const NODE_22_ONLY = new Set(['ai', '@ai-sdk/gateway', '@ai-sdk/provider', '@ai-sdk/provider-utils', 'openai']);
const BELOW_22 = Number(process.versions.node.split('.')[0]) < 22;
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
  let runtimeInstallLog: string;
  /** Before the runtime peers are added: whether any was installed, and the TAP output of the core e2e. */
  let withoutRuntimes: { installed: string[]; tap: string };
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
      filter: (source) => !/(^|[\\/])(node_modules|dist|package-lock\.json)$/.test(relative(FIXTURE, source)),
    });
    const install = (...flags: string[]) =>
      shWithStderr(
        'npm',
        ['install', '--strict-peer-deps', '--no-audit', '--no-fund', '--prefer-offline', ...flags],
        app,
        240_000,
      );
    installLog = (await install()).stderr;
    // The runtimes are optional peers: before they are added, the root, LangChain and CLI entry points compile
    // (declarations checked) and the application's own e2e passes without them.
    await writeFile(
      join(app, 'tsconfig.core.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { outDir: 'dist-core' },
        include: ['src/app.e2e.test.ts', 'src/app.module.ts', 'src/tickets.ts', 'src/verdict-cli.module.ts'],
      }),
    );
    await sh(
      process.execPath,
      [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.core.json'],
      app,
      300_000,
    );
    withoutRuntimes = {
      installed: RUNTIME_PEERS.filter((name) => existsSync(join(app, 'node_modules', name))),
      tap: await sh(process.execPath, ['--test', '--test-reporter=tap', 'dist-core/'], app, 120_000),
    };
    // The runtime peers at the ranges @verdict/nestjs declares for them.
    const manifestPath = join(app, 'package.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { dependencies: Record<string, string> };
    const peers = (
      JSON.parse(await readFile(join(app, 'node_modules/@verdict/nestjs/package.json'), 'utf8')) as {
        peerDependencies: Record<string, string>;
      }
    ).peerDependencies;
    for (const name of RUNTIME_PEERS) manifest.dependencies[name] = peers[name]!;
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
    runtimeInstallLog = (await install(...(BELOW_22 ? ['--engine-strict=false'] : []))).stderr;
  }, 720_000);

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

  it('compiles and passes its own e2e before the optional runtime peers are installed', () => {
    expect(withoutRuntimes.installed).toEqual([]);
    expect(tapCounts(withoutRuntimes.tap)).toEqual({ tests: 2, pass: 2, fail: 0, skipped: 0, todo: 0 });
  });

  it('adds the runtime peers with strict peers; engine checks relaxed only for the runtimes that ask for Node 22', async () => {
    const installed = async (name: string) =>
      (JSON.parse(await readFile(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
        .version;
    for (const name of RUNTIME_PEERS) expect(await installed(name)).toMatch(/^\d+\.\d+\.\d+/);
    const warnings = runtimeInstallLog.split('\n').filter((line) => /^npm warn/i.test(line));
    // Nothing but EBADENGINE (no peer, deprecation or other warning), each of a runtime package asking for Node 22.
    expect(warnings.filter((line) => !/^npm warn EBADENGINE /i.test(line))).toEqual([]);
    const refused = [
      ...runtimeInstallLog.matchAll(
        /package: '((?:@[^/']+\/)?[^@']+)@[^']+',\s*\n[^\n]*required: \{ node: '([^']+)' \}/g,
      ),
    ];
    expect(refused.length).toBe(warnings.filter((line) => /Unsupported engine/.test(line)).length);
    for (const [, name, node] of refused) {
      expect(NODE_22_ONLY.has(name!)).toBe(true);
      expect(node).toMatch(/^>=\s*22(\.0){0,2}$/);
    }
    if (!BELOW_22) expect(warnings).toEqual([]);
    // Every peer (the runtimes' too) is present and within its range.
    await sh('npm', ['ls', '--all'], app);
  });

  it('compiles with skipLibCheck: false', async () => {
    // `lib` names DOM: the declarations of `ai` 7 and `@openai/agents` (not ours) use its types (HeadersInit,
    // RequestCredentials, MediaStream, RTCPeerConnection), which a library check without it cannot find.
    expect(JSON.parse(await readFile(join(app, 'tsconfig.json'), 'utf8')).compilerOptions).toMatchObject({
      skipLibCheck: false,
      strict: true,
      lib: ['ES2023', 'DOM'],
    });
    // Checking the runtimes' declarations too (`ai` 7's alone is large) takes minutes on a busy machine.
    await sh(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', '.'], app, 420_000);
    expect((await readdir(join(app, 'dist'))).sort()).toEqual([
      'agents.e2e.test.js',
      'ai-sdk.e2e.test.js',
      'app.e2e.test.js',
      'app.module.js',
      'runtime-helpdesk.js',
      'tickets.js',
      'verdict-cli.module.js',
    ]);
  }, 450_000);

  it('passes its own e2e: bound tool, CASL deny, approval through the guarded endpoint, one execution; an AI SDK tool and an OpenAI Agents tool', async () => {
    const stdout = await sh(process.execPath, ['--test', '--test-reporter=tap', 'dist/'], app, 120_000);
    expect(tapCounts(stdout)).toEqual({
      tests: 4,
      pass: 4,
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

/** The summary counts of a `node --test` TAP report. */
function tapCounts(tap: string) {
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1]);
  return {
    tests: count('tests'),
    pass: count('pass'),
    fail: count('fail'),
    skipped: count('skipped'),
    todo: count('todo'),
  };
}
