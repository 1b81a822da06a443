import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliCommandRunner, type CliStreams, fail, processStreams } from '@verdict/nestjs/cli';
import { readFileSync } from 'node:fs';
import { EvaluationBaseline } from '../baselines/evaluation-baseline.js';
import { ComparisonFormat } from '../comparison-formats/comparison-format.js';
import { isComparisonFormat, renderComparison } from '../comparison-formats/render-comparison.js';
import { EvaluationReport } from '../reports/evaluation-report.js';

/**
 * `compare <current> <baseline> [--format console|github|junit|sarif]`: the changes between a current
 * report and the checked-in baseline. Exit code 1 on a blocking change, 2 when a file is invalid.
 */
@Injectable()
export class CompareCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run([currentFile, baselineFile]: string[], options: { format?: string } = {}): Promise<void> {
    const format = options.format ?? ComparisonFormat.Console;
    if (!isComparisonFormat(format))
      return fail(
        this.streams,
        false,
        `unknown format "${format}": use ${Object.values(ComparisonFormat).join(', ')}`,
        2,
      );
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
}
