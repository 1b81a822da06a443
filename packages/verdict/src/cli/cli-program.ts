import type { DynamicModule, INestApplicationContext, LoggerService, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { escapedLine } from './output-line.js';
import { printableOutput } from './printable-text.js';

/** A command's implementation, a Nest provider: `params` are its operands, `options` its parsed flags. */
export interface CliCommandRunner {
  run(params: string[], options: Record<string, unknown>): Promise<void> | void;
}

/** One option of a command, in commander's flag syntax (`--by <id>`, `-t, --trace <file|dir>`, `--json`). */
export interface CliOptionSpec {
  readonly flags: string;
  readonly description: string;
  /** Turns the value (and the previous one, for a repeatable option) into the option's value. */
  readonly parse?: (value: string, previous: never) => unknown;
}

/** A command: a leaf with a {@link CliCommandRunner} provider, or a group of subcommands. */
export interface CliCommandSpec {
  readonly name: string;
  /** Operands in commander's syntax: `<id> <resolution>`, `<scenarios...>`. */
  readonly arguments?: string;
  readonly description: string;
  readonly options?: readonly CliOptionSpec[];
  /** The provider that runs the command; absent on a group. */
  readonly runner?: Type<CliCommandRunner>;
  readonly subcommands?: readonly CliCommandSpec[];
  /**
   * Reports that the application could not start for this command (a provider or a lifecycle hook threw), given the
   * error and the command's options, and sets the exit code. Without it, the error ends the process (exit code 1).
   */
  readonly bootFailed?: (error: unknown, options: Record<string, unknown>) => void;
}

/** Starts the application context of a command, once, and answers its provider of `type`. */
type CommandProvider = <T>(type: Type<T>, boot?: { readonly abortOnError: false }) => Promise<T>;

/** A command-line program: its name (what its help prints) and its commands. */
export interface CliProgramSpec {
  readonly name: string;
  readonly description: string;
  readonly commands: readonly CliCommandSpec[];
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The arguments after the program name. Default: `process.argv.slice(2)`. */
  readonly argv?: readonly string[];
  /** The program name in help and errors. Default: the spec's name. */
  readonly name?: string;
  /** Nest's logger while the application runs a command. Default: errors only. */
  readonly logger?: LoggerService | LogLevel[] | false;
}

/** Exit code of a usage error: unknown command, missing operand, unknown option, a group without subcommand. */
export const USAGE_ERROR_EXIT_CODE = 2;

/**
 * Parses `argv` against `spec` and runs the command it names, as a provider of an application context of
 * `module` (started only when a command runs, so `--help` and usage errors need no database). A usage error
 * prints the error with a hint on stderr and sets the exit code 2; `--help` prints the help and exits 0.
 *
 * @example
 * await runCli(AppCliModule, { name: 'jobs', description: 'Jobs commands', commands: [...] });
 */
export async function runCli(
  module: Type | DynamicModule,
  spec: CliProgramSpec,
  options: RunCliOptions = {},
): Promise<void> {
  let app: INestApplicationContext | undefined;
  const provider: CommandProvider = async (type, boot) => {
    app ??= await NestFactory.createApplicationContext(module, { logger: options.logger ?? ['error'], ...boot });
    return app.get(type);
  };
  try {
    await cliProgram(spec, provider, options.name).parseAsync([...(options.argv ?? process.argv.slice(2))], {
      from: 'user',
    });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode === 0 ? 0 : USAGE_ERROR_EXIT_CODE;
  } finally {
    await app?.close();
  }
}

/** The commander program of `spec`; each leaf's action gets its runner from `provider`. */
export function cliProgram(spec: CliProgramSpec, provider: CommandProvider, name = spec.name): Command {
  const program = new Command(name)
    .description(spec.description)
    .exitOverride()
    // Commander's own help and usage errors quote argv: printable too (ADR 0154).
    .configureOutput({
      writeOut: (text) => process.stdout.write(printableOutput(text)),
      writeErr: (text) => process.stderr.write(printableOutput(text)),
      outputError: (text, write) => write(usageErrorLine(text)),
    })
    .showHelpAfterError(`(run ${name} --help for usage)`);
  for (const command of spec.commands) add(program, command, provider);
  return program;
}

/** The line break commander puts before the suggestion it ends a usage error with: `(Did you mean evidence?)`. */
const SUGGESTION_BREAK = /\n(?=\(Did you mean [^\n]*\?\)$)/;

/**
 * A usage error commander writes (`error: unknown command '<argv>'`, a line break, maybe a suggestion on a line of its
 * own), on one line: the suggestion follows the error after a space, and the rest is escaped as `line` escapes a
 * value, argv's line breaks included, so that no argument can start a line.
 */
function usageErrorLine(text: string): string {
  return `${escapedLine(text.replace(/\n$/, '').replace(SUGGESTION_BREAK, ' '))}\n`;
}

function add(parent: Command, spec: CliCommandSpec, provider: CommandProvider): void {
  const command = parent
    .command(spec.arguments ? `${spec.name} ${spec.arguments}` : spec.name)
    .description(spec.description);
  for (const option of spec.options ?? []) {
    if (option.parse)
      command.option(option.flags, option.description, option.parse as (value: string, previous: unknown) => unknown);
    else command.option(option.flags, option.description);
  }
  for (const subcommand of spec.subcommands ?? []) add(command, subcommand, provider);
  const { runner, bootFailed } = spec;
  if (runner === undefined) return;
  if (bootFailed === undefined) {
    command.action(async () => (await provider(runner)).run(command.args, command.opts()));
    return;
  }
  command.action(async () => {
    let started: CliCommandRunner;
    try {
      // Nest ends the process when a provider throws unless told not to: the command reports it instead.
      started = await provider(runner, { abortOnError: false });
    } catch (error) {
      return bootFailed(error, command.opts());
    }
    return started.run(command.args, command.opts());
  });
}
