import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { configuredEvidenceChain } from './configured-evidence-chain.js';

/** `evidence seal [--json]`: links every record not chained yet (a stopped process's, records from before the chains). */
@Injectable()
export class EvidenceSealCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const report = await configuredEvidenceChain(this.recorder).seal();
      this.streams.out(
        json
          ? JSON.stringify(report)
          : line`sealed ${report.sealed} record(s), ${report.checkpoints} signed checkpoint(s) written`,
      );
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
