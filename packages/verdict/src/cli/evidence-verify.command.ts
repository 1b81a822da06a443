import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { configuredEvidenceChain } from './configured-evidence-chain.js';

const COLUMNS = ['kind', 'stream', 'intact', 'first_bad', 'problem', 'records', 'checkpoints', 'unsealed'] as const;

/**
 * `evidence verify [--json]`: verifies every evidence stream (read-only). Exit 1 when a stream is
 * broken, naming its first bad sequence and what broke there; 0 when every stream is intact.
 */
@Injectable()
export class EvidenceVerifyCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const verdicts = await configuredEvidenceChain(this.recorder).verify();
      const intact = verdicts.every((verdict) => verdict.intact);
      if (json) this.streams.out(JSON.stringify({ intact, streams: verdicts }));
      else {
        const rows = verdicts.map((verdict) => ({
          kind: verdict.kind,
          stream: verdict.stream,
          intact: verdict.intact ? 'yes' : 'NO',
          first_bad: verdict.firstBadSequence ?? '-',
          problem: verdict.problem ?? '-',
          records: verdict.records,
          checkpoints: `${verdict.checkpoints}${verdict.signaturesChecked ? '' : ' (unsigned check)'}`,
          unsealed: verdict.unsealed,
        }));
        this.streams.out(table(rows, COLUMNS));
        for (const broken of verdicts.filter((verdict) => !verdict.intact))
          this.streams.err(
            `${broken.kind} stream ${broken.stream}: first bad sequence ${broken.firstBadSequence} (${broken.problem})`,
          );
      }
      if (!intact) process.exitCode = 1;
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
