import { Inject, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliStreams, fail, processStreams } from '@verdict/nestjs/cli';
import { readFileSync } from 'node:fs';
import { Command, CommandRunner, Option } from 'nest-commander';
import { EvaluationBaseline } from '../baselines/evaluation-baseline.js';
import { ComparisonFormat } from '../comparison-formats/comparison-format.js';
import { isComparisonFormat, renderComparison } from '../comparison-formats/render-comparison.js';
import { EvaluationReport } from '../reports/evaluation-report.js';

/**
 * `compare <current> <baseline> [--format console|github|junit|sarif]`: the changes between a current
 * report and the checked-in baseline. Exit code 1 on a blocking change, 2 when a file is invalid.
 */
@Command({ name: 'compare', arguments: '<current> <baseline>', description: 'Compare a report with a baseline; exit 1 on a blocking change' })
export class CompareCommand extends CommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {
    super();
  }

  async run([currentFile, baselineFile]: string[], options: { format?: string } = {}): Promise<void> {
    const format = options.format ?? ComparisonFormat.Console;
    if (!isComparisonFormat(format)) return fail(this.streams, false, `unknown format "${format}": use ${Object.values(ComparisonFormat).join(', ')}`, 2);
    let comparison;
    let current;
    try {
      current = EvaluationReport.parse(readFileSync(currentFile, 'utf8'));
      comparison = EvaluationBaseline.fromJson(readFileSync(baselineFile, 'utf8')).compare(current);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    this.streams.out(renderComparison(format, { comparison, suite: current.suite.name, currentFile, baselineFile }));
    if (comparison.blocking) process.exitCode = 1;
  }

  @Option({ flags: '-f, --format <format>', description: 'console (default), github, junit or sarif' })
  parseFormat(value: string): string {
    return value;
  }
}
