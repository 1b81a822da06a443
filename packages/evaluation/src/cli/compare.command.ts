import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliCommandRunner, type CliStreams, fail, processStreams } from '@verdict/nestjs/cli';
import { readFileSync } from 'node:fs';
import { EvaluationBaseline } from '../baselines/evaluation-baseline.js';
import { ComparisonFormat } from '../comparison-formats/comparison-format.js';
import { isComparisonFormat, renderComparison } from '../comparison-formats/render-comparison.js';
import { compareLiveReports, renderLiveComparison } from '../live/compare-live-reports.js';
import { LiveReport } from '../live/live-report.js';
import { EvaluationReport } from '../reports/evaluation-report.js';
import { share } from './decimal-flags.js';
import { parsedOrNull } from './parsed-or-null.js';

/**
 * `compare <current> <baseline> [--format console|github|junit|sarif] [--bound-threshold share]`: the
 * changes between a current report and the checked-in baseline. Two live reports
 * (`verdict.live-report.v1`) are compared by their figures, in any of the four formats: a rise of a breach upper
 * bound by more than the threshold (default 0.05) blocks. Exit code 1 on a blocking change, 2 when a file
 * is invalid or the two reports are of different kinds, or (before any file is read) when the format is unknown or
 * the threshold is not a share from 0 to 1 written in decimal (`0.05`; not `5e-2`, `.05` or `0x0`).
 */
@Injectable()
export class CompareCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run(
    [currentFile, baselineFile]: string[],
    options: { format?: string; boundThreshold?: string } = {},
  ): Promise<void> {
    const format = options.format ?? ComparisonFormat.Console;
    if (!isComparisonFormat(format))
      return fail(
        this.streams,
        false,
        `unknown format "${format}": use ${Object.values(ComparisonFormat).join(', ')}`,
        2,
      );
    let threshold;
    try {
      threshold = share('--bound-threshold', options.boundThreshold);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    const texts = this.read(currentFile, baselineFile);
    if (texts === null) return;
    if (texts.some((text) => LiveReport.isLive(parsedOrNull(text))))
      return this.compareLive(texts, format, currentFile, threshold);
    let comparison;
    let current;
    try {
      current = EvaluationReport.parse(texts[0]);
      comparison = EvaluationBaseline.fromJson(texts[1]).compare(current);
    } catch (error) {
      return fail(this.streams, false, (error as Error).message, 2);
    }
    this.streams.out(renderComparison(format, { comparison, suite: current.suite.name, currentFile, baselineFile }));
    if (comparison.blocking) process.exitCode = 1;
  }

  private read(...files: string[]): [string, string] | null {
    try {
      return files.map((file) => readFileSync(file, 'utf8')) as [string, string];
    } catch (error) {
      fail(this.streams, false, (error as Error).message, 2);
      return null;
    }
  }

  private compareLive(
    [currentText, baselineText]: [string, string],
    format: ComparisonFormat,
    currentFile: string,
    threshold?: number,
  ): void {
    let current;
    let comparison;
    try {
      current = LiveReport.parse(currentText);
      const baseline = LiveReport.parse(baselineText);
      comparison = compareLiveReports(current, baseline, { threshold });
    } catch (error) {
      return fail(this.streams, false, `${(error as Error).message} (both files must be live reports)`, 2);
    }
    this.streams.out(renderLiveComparison(comparison, current.suite.name, format, currentFile));
    if (comparison.blocking) process.exitCode = 1;
  }
}
