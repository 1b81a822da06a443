import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliCommandRunner, type CliStreams, fail, line, processStreams } from '@verdict/nestjs/cli';
import { readFileSync, writeFileSync } from 'node:fs';
import { LiveReport } from '../live/live-report.js';
import { EvaluationReport } from '../reports/evaluation-report.js';
import { parsedOrNull } from './parsed-or-null.js';

/**
 * `baseline write <report> <baseline>`: validates a report and keeps it as the baseline to check in. A
 * deterministic report and a complete live report (`verdict.live-report.v1`) are both taken; a partial live report
 * is refused (finish it with `live --resume`), as `compare` would block it as `incomplete_run`.
 */
@Injectable()
export class BaselineWriteCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run([reportFile, baselineFile]: string[]): Promise<void> {
    try {
      const text = readFileSync(reportFile, 'utf8');
      const { json, cases } = LiveReport.isLive(parsedOrNull(text)) ? liveBaseline(text) : deterministicBaseline(text);
      writeFileSync(baselineFile, json);
      this.streams.out(line`baseline ${baselineFile} written from ${reportFile} (${cases} cases)`);
    } catch (error) {
      fail(this.streams, false, (error as Error).message, 2);
    }
  }
}

function deterministicBaseline(text: string): { json: string; cases: number } {
  const report = EvaluationReport.parse(text);
  return { json: EvaluationReport.toJson(report), cases: report.cases.length };
}

function liveBaseline(text: string): { json: string; cases: number } {
  const report = LiveReport.parse(text);
  if (!report.complete)
    throw new Error('a partial live report cannot be a baseline: finish the run with `verdict-eval live --resume`');
  return { json: LiveReport.toJson(report), cases: report.cases.length };
}
