import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SourceTimeInTheFutureError, StaleBuildError, assertCurrentBuild } from './current-build.js';
import { WorkerPool } from './worker-pool.js';

/** A worker that accepts its init and nothing else: enough for `WorkerPool.start` to succeed. */
const IDLE_WORKER = `process.on('message', ({ sequence }) => process.send({ sequence, reply: 'ready' }));\nprocess.on('disconnect', () => process.exit(0));\n`;
const BUILT_AT = new Date('2026-01-01T12:00:00Z');
const BEFORE = new Date('2026-01-01T11:00:00Z');
const AFTER = new Date('2026-01-01T13:00:00Z');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Two TypeScript projects laid out as in this repository, `app` referencing `lib`, each built at
 * `BUILT_AT`; every file written through `file` gets the modification time given.
 */
function setup() {
  const root = mkdtempSync(join(tmpdir(), 'verdict-build-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const file = (path: string, text: string, modified: Date) => {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    utimesSync(full, modified, modified);
  };
  for (const [project, references] of [
    ['lib', []],
    ['app', [{ path: '../lib' }]],
  ] as const) {
    const config = {
      compilerOptions: { rootDir: 'src', outDir: 'dist', tsBuildInfoFile: 'dist/.tsbuildinfo' },
      exclude: ['src/**/*.spec.ts'],
      references,
    };
    file(`${project}/tsconfig.json`, JSON.stringify(config), BEFORE);
    file(`${project}/src/index.ts`, 'export {};', BEFORE);
    file(`${project}/dist/.tsbuildinfo`, '{}', BUILT_AT);
  }
  file('app/src/worker.ts', '', BEFORE);
  file('app/dist/worker.js', IDLE_WORKER, BUILT_AT);
  const worker = pathToFileURL(join(root, 'app/dist/worker.js'));
  return { root, file, worker };
}

describe('assertCurrentBuild', () => {
  it('accepts a build newer than every source, also when a spec (which it does not compile) changed since', () => {
    const { file, worker } = setup();
    file('app/src/deep/worker.spec.ts', '', AFTER);
    expect(() => assertCurrentBuild(worker)).not.toThrow();
  });

  it("refuses a source changed after its project's build, naming the file and the command that rebuilds", () => {
    const { root, file, worker } = setup();
    file('app/src/deep/store.ts', '', AFTER);
    expect(() => assertCurrentBuild(worker)).toThrow(StaleBuildError);
    expect(() => assertCurrentBuild(worker)).toThrow(
      expect.objectContaining({ file: join(root, 'app/src/deep/store.ts') }),
    );
    expect(() => assertCurrentBuild(worker)).toThrow(
      /app\/src\/deep\/store\.ts changed after .*app was last built.*npx tsc -b .*app`/,
    );
  });

  it('refuses a source changed after the build of a project the script’s project references', () => {
    const { root, file, worker } = setup();
    file('lib/src/index.ts', 'export const changed = true;', AFTER);
    expect(() => assertCurrentBuild(worker)).toThrow(expect.objectContaining({ file: join(root, 'lib/src/index.ts') }));
  });

  it('refuses a project that was never built', () => {
    const { root, worker } = setup();
    rmSync(join(root, 'lib/dist'), { recursive: true });
    expect(() => assertCurrentBuild(worker)).toThrow(/lib has not been built: .*lib\/dist\/\.tsbuildinfo is missing/);
  });

  it('refuses a source whose modification time is later than now as clock skew, which a rebuild would not cure', () => {
    const { root, file, worker } = setup();
    const future = new Date(Date.now() + 24 * 3600 * 1000);
    file('lib/src/index.ts', 'export const copied = true;', future);
    expect(() => assertCurrentBuild(worker)).toThrow(SourceTimeInTheFutureError);
    expect(() => assertCurrentBuild(worker)).toThrow(expect.objectContaining({ file: join(root, 'lib/src/index.ts') }));
    expect(() => assertCurrentBuild(worker)).toThrow(
      /lib\/src\/index\.ts was modified in the future .*clock skew.*touch the sources/,
    );
    // A rebuild stamps the build info with the present: still older than the source, so the same error.
    const rebuiltAt = new Date();
    file('lib/dist/.tsbuildinfo', '{}', rebuiltAt);
    expect(() => assertCurrentBuild(worker)).toThrow(SourceTimeInTheFutureError);
    // Touched (here: to the rebuild's time), the source is current again.
    utimesSync(join(root, 'lib/src/index.ts'), rebuiltAt, rebuiltAt);
    expect(() => assertCurrentBuild(worker)).not.toThrow();
  });

  it('refuses build info from the future, which would hide every later change', () => {
    const { root, file, worker } = setup();
    file('app/dist/.tsbuildinfo', '{}', new Date(Date.now() + 24 * 3600 * 1000));
    expect(() => assertCurrentBuild(worker)).toThrow(
      expect.objectContaining({ name: 'SourceTimeInTheFutureError', file: join(root, 'app/dist/.tsbuildinfo') }),
    );
  });

  it('accepts sources and a build made a moment ago (control)', () => {
    const { file, worker } = setup();
    const now = new Date();
    file('lib/src/index.ts', 'export const fresh = true;', now);
    file('lib/dist/.tsbuildinfo', '{}', now);
    expect(() => assertCurrentBuild(worker)).not.toThrow();
  });

  it('does not check a script outside any built project', () => {
    const { root, file } = setup();
    file('scripts/worker.js', IDLE_WORKER, BEFORE);
    expect(() => assertCurrentBuild(pathToFileURL(join(root, 'scripts/worker.js')))).not.toThrow();
  });
});

describe('WorkerPool.start', () => {
  it('starts workers from a current build', async () => {
    const { worker } = setup();
    const pool = await WorkerPool.start(worker, 2, {});
    cleanups.push(() => pool.close());
    expect(pool.size).toBe(2);
  });

  it('refuses to fork workers from a build older than its sources', async () => {
    const { file, worker } = setup();
    file('app/src/worker.ts', 'export const fixed = true;', AFTER);
    await expect(WorkerPool.start(worker, 2, {})).rejects.toThrow(StaleBuildError);
  });
});
