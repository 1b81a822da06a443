import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliCommandRunner, type CliStreams, fail, line, processStreams } from '@verdict/nestjs/cli';
import { readFileSync, writeFileSync } from 'node:fs';
import { EvaluationReport } from '../reports/evaluation-report.js';

/** `baseline write <report> <baseline>`: validates a report and keeps it as the baseline to check in. */
@Injectable()
export class BaselineWriteCommand implements CliCommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {}

  async run([reportFile, baselineFile]: string[]): Promise<void> {
    try {
      const report = EvaluationReport.parse(readFileSync(reportFile, 'utf8'));
      writeFileSync(baselineFile, EvaluationReport.toJson(report));
      this.streams.out(line`baseline ${baselineFile} written from ${reportFile} (${report.cases.length} cases)`);
    } catch (error) {
      fail(this.streams, false, (error as Error).message, 2);
    }
  }
}
