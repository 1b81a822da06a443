import { Inject, Optional } from '@nestjs/common';
import { CLI_STREAMS, type CliStreams, fail, processStreams } from '@verdict/nestjs/cli';
import { readFileSync, writeFileSync } from 'node:fs';
import { CommandRunner, SubCommand } from 'nest-commander';
import { EvaluationReport } from '../reports/evaluation-report.js';

/** `baseline write <report> <baseline>`: validates a report and keeps it as the baseline to check in. */
@SubCommand({ name: 'write', arguments: '<report> <baseline>', description: 'Validate a report and write it as the baseline' })
export class BaselineWriteCommand extends CommandRunner {
  constructor(@Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams) {
    super();
  }

  async run([reportFile, baselineFile]: string[]): Promise<void> {
    try {
      const report = EvaluationReport.parse(readFileSync(reportFile, 'utf8'));
      writeFileSync(baselineFile, EvaluationReport.toJson(report));
      this.streams.out(`baseline ${baselineFile} written from ${reportFile} (${report.cases.length} cases)`);
    } catch (error) {
      fail(this.streams, false, (error as Error).message, 2);
    }
  }
}
