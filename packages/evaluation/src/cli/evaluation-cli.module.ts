import { Module } from '@nestjs/common';
import { type CliProgramSpec, runCli, type RunCliOptions } from '@verdict/nestjs/cli';
import { AsrhCommand } from './asrh.command.js';
import { BaselineWriteCommand } from './baseline-write.command.js';
import { CompareCommand } from './compare.command.js';
import { RunCommand } from './run.command.js';

/** The `verdict-eval` commands: run, baseline write, compare, asrh. */
@Module({ providers: [RunCommand, BaselineWriteCommand, CompareCommand, AsrhCommand] })
export class EvaluationCliModule {}

/** The `verdict-eval` program: its commands, operands and options. */
export const EVALUATION_CLI: CliProgramSpec = {
  name: 'verdict-eval',
  description: 'Run Verdict security suites, keep baselines, compare runs, evaluate OWASP harness scenarios',
  commands: [
    {
      name: 'run',
      arguments: '<suite>',
      description: 'Run a security suite module and write its report',
      options: [{ flags: '-o, --out <file>', description: 'Where to write the report (default verdict-report.json)' }],
      runner: RunCommand,
    },
    {
      name: 'baseline',
      description: 'Manage evaluation baselines',
      subcommands: [
        {
          name: 'write',
          arguments: '<report> <baseline>',
          description: 'Validate a report and write it as the baseline',
          runner: BaselineWriteCommand,
        },
      ],
    },
    {
      name: 'compare',
      arguments: '<current> <baseline>',
      description: 'Compare a report with a baseline; exit 1 on a blocking change',
      options: [{ flags: '-f, --format <format>', description: 'console (default), github, junit or sarif' }],
      runner: CompareCommand,
    },
    {
      name: 'asrh',
      arguments: '<scenarios...>',
      description: 'Evaluate OWASP harness scenarios (YAML) against recorded traces (JSON)',
      options: [
        {
          flags: '-t, --trace <file|dir>',
          description: 'A trace file or a directory of *.json traces (repeatable)',
          parse: (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
        },
        { flags: '--json', description: 'Print the results as one JSON array' },
      ],
      runner: AsrhCommand,
    },
  ],
};

/** Runs `verdict-eval` on `options.argv` (default: the process's arguments). Usage errors exit 2. */
export function runEvaluationCli(options: RunCliOptions = {}): Promise<void> {
  return runCli(EvaluationCliModule, EVALUATION_CLI, options);
}
