import { Module } from '@nestjs/common';
import { type CliProgramSpec, runCli, type RunCliOptions } from '@verdict/nestjs/cli';
import { AsrhCommand } from './asrh.command.js';
import { BaselineWriteCommand } from './baseline-write.command.js';
import { CompareCommand } from './compare.command.js';
import { LiveCommand } from './live.command.js';
import { RunCommand } from './run.command.js';

/** The `verdict-eval` commands: run, live, baseline write, compare, asrh. */
@Module({ providers: [RunCommand, LiveCommand, BaselineWriteCommand, CompareCommand, AsrhCommand] })
export class EvaluationCliModule {}

/** The `verdict-eval` program: its commands, operands and options. */
export const EVALUATION_CLI: CliProgramSpec = {
  name: 'verdict-eval',
  description:
    'Run Verdict security suites and live trials, keep baselines, compare runs, evaluate OWASP harness scenarios',
  commands: [
    {
      name: 'run',
      arguments: '<suite>',
      description: 'Run a security suite module and write its report',
      options: [{ flags: '-o, --out <file>', description: 'Where to write the report (default verdict-report.json)' }],
      runner: RunCommand,
    },
    {
      name: 'live',
      arguments: '<suite>',
      description: 'Run a live suite N times per case against the chat model VERDICT_LIVE_* configures (opt-in)',
      options: [
        { flags: '-o, --out <file>', description: 'Where to write the report (default verdict-live-report.json)' },
        { flags: '-n, --trials <n>', description: 'Trials per case (default 30)' },
        { flags: '--control', description: 'Also run the unguarded control arm, paired trial by trial' },
        { flags: '-c, --concurrency <n>', description: 'Trials in flight at once (default 4)' },
        {
          flags: '--min-coverage <share>',
          description: 'Below this share of exercised trials a case is inadequate (default 0.8)',
        },
        { flags: '--min-utility <share>', description: 'A utility case below this success rate fails (default 0.9)' },
        { flags: '--max-trials <n>', description: 'Start at most this many trials in this run' },
        { flags: '--max-tokens <n>', description: 'Start no further trial once this run used this many tokens' },
        { flags: '--resume <report>', description: 'Continue a partial report (written back to it unless --out)' },
      ],
      runner: LiveCommand,
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
      options: [
        { flags: '-f, --format <format>', description: 'console (default), github, junit or sarif' },
        {
          flags: '--bound-threshold <share>',
          description: 'Live reports: a breach upper bound rise above this share blocks (default 0.05)',
        },
      ],
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
