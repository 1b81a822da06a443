import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The slice of a `tsconfig.json` that says where a project's sources and its build marker are. */
interface ProjectConfig {
  readonly compilerOptions?: { readonly rootDir?: string; readonly tsBuildInfoFile?: string };
  readonly exclude?: readonly string[];
  readonly references?: ReadonlyArray<{ readonly path: string }>;
}

/**
 * Thrown before any worker is forked when a compiled script's build is missing or older than one of
 * its sources: the worker would test code that is no longer the code in the repository.
 */
export class StaleBuildError extends Error {
  override readonly name = 'StaleBuildError';

  constructor(
    message: string,
    /** The source file newer than the build, or the missing build marker. */
    readonly file: string,
  ) {
    super(message);
  }
}

/**
 * Thrown before any worker is forked when a source or a build marker has a modification time later
 * than now (clock skew between machines, an `rsync`/`tar` copy that kept a future time): no rebuild
 * would cure it — the new build info is stamped with the present, still older than the source, or a
 * future build info would hide every later change. Touch the file (`touch <file>`), then rebuild.
 */
export class SourceTimeInTheFutureError extends Error {
  override readonly name = 'SourceTimeInTheFutureError';

  constructor(
    message: string,
    /** The file whose modification time is later than now. */
    readonly file: string,
  ) {
    super(message);
  }
}

/**
 * Refuses to go on when the compiled `script` would run a stale build: finds the TypeScript project
 * the script was emitted by (the nearest `tsconfig.json` above it that names a `tsBuildInfoFile`) and
 * checks it and every project it references, as `tsc -b` does: the build info must exist and be at
 * least as new as every source under `rootDir` (files matching the project's `exclude`, such as specs,
 * are not compiled and do not count). A script outside such a project is not checked.
 *
 * `tsc -b` rewrites the build info on every build that saw a change, even one that emitted nothing new,
 * so a fresh build always passes. A source or build info modified later than now (clock skew, a copy
 * that kept its time) would make that rebuild useless or hide later changes: it is refused on its own.
 *
 * @throws StaleBuildError naming the newer source (or the missing build) and the command to rebuild.
 * @throws SourceTimeInTheFutureError naming the file whose modification time is later than now.
 * @example
 * assertCurrentBuild(new URL('../../dist/processes/gate-worker.js', import.meta.url));
 */
export function assertCurrentBuild(script: URL): void {
  const project = owningProject(dirname(fileURLToPath(script)));
  if (project === undefined) return;
  const now = Date.now();
  const checked = new Set<string>();
  const check = (directory: string): void => {
    if (checked.has(directory)) return;
    checked.add(directory);
    const config = readConfig(directory);
    for (const reference of config.references ?? []) check(resolve(directory, reference.path));
    const rebuild = `Rebuild with \`npx tsc -b ${shown(project)}\` (npm test builds first).`;
    const buildInfo = join(directory, config.compilerOptions?.tsBuildInfoFile ?? '');
    if (!existsSync(buildInfo))
      throw new StaleBuildError(
        `${shown(directory)} has not been built: ${shown(buildInfo)} is missing. ${rebuild}`,
        buildInfo,
      );
    const builtAt = notInTheFuture(buildInfo, statSync(buildInfo).mtimeMs, now, rebuild);
    const excluded = (config.exclude ?? []).map((pattern) => globPattern(join(directory, pattern)));
    const sources = join(directory, config.compilerOptions?.rootDir ?? '.');
    for (const source of typeScriptFiles(sources)) {
      if (excluded.some((pattern) => pattern.test(posix(source)))) continue;
      if (notInTheFuture(source, statSync(source).mtimeMs, now, rebuild) <= builtAt) continue;
      throw new StaleBuildError(
        `${shown(source)} changed after ${shown(directory)} was last built (${shown(buildInfo)}): ` +
          `a worker would run the old code. ${rebuild}`,
        source,
      );
    }
  };
  check(project);
}

/** `modifiedAt` of `file`, unless it is later than `now`: then a {@link SourceTimeInTheFutureError}. */
function notInTheFuture(file: string, modifiedAt: number, now: number, rebuild: string): number {
  if (modifiedAt <= now) return modifiedAt;
  throw new SourceTimeInTheFutureError(
    `${shown(file)} was modified in the future (${new Date(modifiedAt).toISOString()}, now ${new Date(now).toISOString()}): ` +
      `clock skew, or a copy that kept its time. A rebuild cannot fix this: touch the sources (\`touch ${shown(file)}\`), then ${rebuild[0].toLowerCase()}${rebuild.slice(1)}`,
    file,
  );
}

/** The nearest directory at or above `directory` whose `tsconfig.json` names a `tsBuildInfoFile`. */
function owningProject(directory: string): string | undefined {
  for (let current = directory; ; current = dirname(current)) {
    if (
      existsSync(join(current, 'tsconfig.json')) &&
      readConfig(current).compilerOptions?.tsBuildInfoFile !== undefined
    )
      return current;
    if (dirname(current) === current) return undefined;
  }
}

function readConfig(directory: string): ProjectConfig {
  const file = join(directory, 'tsconfig.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ProjectConfig;
  } catch (error) {
    throw new Error(`Cannot read ${shown(file)} as plain JSON to check that its build is current.`, { cause: error });
  }
}

/** Every `.ts` file (not `.d.ts`) below `directory`. */
function typeScriptFiles(directory: string): string[] {
  return (readdirSync(directory, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => join(directory, name));
}

/** A tsconfig glob (`**` for any directories, `*` within one name) as an anchored regular expression. */
function globPattern(glob: string): RegExp {
  const escaped = posix(glob).replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\*\*\/|\*/g, (token) => (token === '*' ? '[^/]*' : '(?:.*/)?'))}$`);
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

function shown(path: string): string {
  return relative(process.cwd(), path) || '.';
}
