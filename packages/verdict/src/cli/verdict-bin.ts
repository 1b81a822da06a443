import type { DynamicModule, Type } from '@nestjs/common';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CliProgramSpec, USAGE_ERROR_EXIT_CODE, runCli } from './cli-program.js';
import { type CliStreams, printableStreams, processStreams } from './cli-output.js';
import { MCP_CLI_COMMANDS } from './mcp-cli-commands.js';
import { line } from './output-line.js';
import { VerdictCliModule } from './verdict-cli.module.js';
import { VERDICT_CLI } from './verdict-cli.program.js';

/** What the `verdict` bin reads before the command: which module of the application to run the CLI against. */
export interface VerdictBinArguments {
  /** `--module <file>`: a compiled module of the application, ES or CommonJS (default: `VERDICT_CLI_MODULE`). */
  readonly module: string | undefined;
  /** `--export <name>`: the export that is the Nest module (default: `default`, else the only export). */
  readonly exportName: string | undefined;
  /** The operator command and its options, as `runVerdictCli` takes them. */
  readonly rest: readonly string[];
}

/** The operator commands as the bin runs them: their help also names the bin's own options. */
const VERDICT_BIN: CliProgramSpec = {
  ...VERDICT_CLI,
  description: [
    `${VERDICT_CLI.description}.`,
    '',
    'Before the command: --module <file>, your compiled module that imports VerdictModule.forRoot (an ES module or ' +
      'CommonJS; default: VERDICT_CLI_MODULE), and --export <name>, the export that is the module (default: the ' +
      'default export, else the only one). `verdict mcp pin|diff` needs no module.',
  ].join('\n'),
};

/** The module `verdict mcp …` runs on without `--module`: the two commands and nothing else. */
const MCP_BIN_MODULE: DynamicModule = { module: class VerdictMcpBinModule {}, providers: [...MCP_CLI_COMMANDS] };

/**
 * Splits the bin's own leading options from the command: `--module <file>` / `--module=<file>` and
 * `--export <name>` / `--export=<name>`, in any order, before the command.
 *
 * @example binArguments(['--module', './dist/cli.module.js', 'evidence', 'verify']).rest // ['evidence', 'verify']
 */
export function binArguments(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): VerdictBinArguments {
  const found: Record<'module' | 'export', string | undefined> = { module: env.VERDICT_CLI_MODULE, export: undefined };
  let index = 0;
  for (; index < argv.length; index++) {
    const match = /^--(module|export)(?:=(.*))?$/.exec(argv[index]!);
    if (match === null) break;
    const name = match[1] as 'module' | 'export';
    found[name] = match[2] ?? argv[++index];
  }
  return { module: found.module, exportName: found.export, rest: argv.slice(index) };
}

/**
 * The `verdict` bin (`npx verdict --module ./dist/verdict-cli.module.js evidence verify`): imports the
 * application's compiled module, adds `VerdictCliModule` beside it (a module that imports it already is fine)
 * and runs the operator CLI. The module is the file's `--export`, else its default export, else its only
 * export: a Nest module class or a `DynamicModule` (`AppModule.register(...)` evaluated in that file). A
 * missing `--module` before a command, a file that cannot be imported or an export that is not a module is a
 * usage error (exit 2), and nothing runs.
 *
 * @example await runVerdictBin(process.argv.slice(2));
 */
export async function runVerdictBin(
  argv: readonly string[],
  options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv; readonly streams?: CliStreams } = {},
): Promise<void> {
  const { module, exportName, rest } = binArguments(argv, options.env);
  const streams = options.streams === undefined ? processStreams : printableStreams(options.streams);
  const usage = (message: string) => {
    streams.err(line`verdict: ${message}`);
    process.exitCode = USAGE_ERROR_EXIT_CODE;
  };
  const wantsHelp = rest.length === 0 || rest.some((arg) => arg === '--help' || arg === '-h' || arg === 'help');
  if (module === undefined || module === '') {
    // `mcp pin|diff` read MCP servers and the lockfile only: no application to start.
    if (rest[0] === 'mcp') return runCli(MCP_BIN_MODULE, VERDICT_BIN, { argv: rest });
    if (wantsHelp) return runCli(VerdictCliModule, VERDICT_BIN, { argv: rest.length === 0 ? ['--help'] : rest });
    return usage(
      'pass --module <file>: your compiled module that imports VerdictModule.forRoot (or set VERDICT_CLI_MODULE), e.g. npx verdict --module ./dist/verdict-cli.module.js evidence verify',
    );
  }
  const path = isAbsolute(module) ? module : resolve(options.cwd ?? process.cwd(), module);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    return usage(`cannot import --module ${module}: ${(error as Error).message}`);
  }
  const picked = pickModule(commonJsExports(exports, exportName), exportName);
  if (typeof picked === 'string') return usage(`--module ${module}: ${picked}`);
  // A module that imports VerdictCliModule (its forRoot hooks included) already has the commands.
  const imports = importsCliModule(picked) ? [picked] : [picked, VerdictCliModule];
  const bin: DynamicModule = { module: class VerdictBinModule {}, imports };
  return runCli(bin, VERDICT_BIN, { argv: rest.length === 0 ? ['--help'] : rest });
}

/**
 * The exports of a file TypeScript compiled to CommonJS (`exports.default = AppModule`, `__esModule` set): imported as
 * an ES module, its `default` is the whole `module.exports`, so its own default export is `default.default`. A name
 * `--export` gives that the file's namespace has (other than `default`) is read from the namespace, however the file
 * was compiled.
 */
function commonJsExports(namespace: Record<string, unknown>, exportName: string | undefined): Record<string, unknown> {
  const whole = namespace['default'];
  const compiled =
    typeof whole === 'object' && whole !== null && (whole as { __esModule?: unknown }).__esModule === true;
  const named = exportName !== undefined && exportName !== 'default' && Object.hasOwn(namespace, exportName);
  return compiled && !named ? (whole as Record<string, unknown>) : namespace;
}

/** The Nest module among a file's exports, or what is wrong. */
function pickModule(exports: Record<string, unknown>, exportName: string | undefined): Type | DynamicModule | string {
  const names = Object.keys(exports);
  const name = exportName ?? (names.includes('default') ? 'default' : names.length === 1 ? names[0] : undefined);
  if (name === undefined)
    return `it exports ${names.length === 0 ? 'nothing' : names.join(', ')}: name the module with --export <name>, or export it as default.`;
  const value = exports[name];
  const isDynamic =
    typeof value === 'object' && value !== null && typeof (value as DynamicModule).module === 'function';
  if (typeof value === 'function' || isDynamic) return value as Type | DynamicModule;
  return `its export "${name}" is not a Nest module (a @Module class or a DynamicModule).`;
}

/** Whether `module` imports `VerdictCliModule`, directly or through its static imports (Nest's `imports` metadata). */
function importsCliModule(module: unknown, seen = new Set<unknown>()): boolean {
  if (module === null || module === undefined || seen.has(module)) return false;
  seen.add(module);
  const dynamic = typeof module === 'object' ? (module as DynamicModule) : undefined;
  const type = dynamic?.module ?? module;
  if (type === VerdictCliModule) return true;
  const declared = typeof type === 'function' ? ((Reflect.getMetadata('imports', type) as unknown[]) ?? []) : [];
  return [...declared, ...(dynamic?.imports ?? [])].some((imported) => importsCliModule(imported, seen));
}
