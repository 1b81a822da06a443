import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import { type CliCommandRunner, USAGE_ERROR_EXIT_CODE } from './cli-program.js';
import { InvalidWitnessFileError, readChainWitness } from './chain-witness-file.js';
import { configuredEvidenceChain } from './configured-evidence-chain.js';

const COLUMNS = [
  'kind',
  'stream',
  'intact',
  'first_bad',
  'problem',
  'checkpoint',
  'records',
  'checkpoints',
  'unsealed',
] as const;

/**
 * `evidence verify [--witness <file>] [--json]`: verifies every evidence stream (read-only). Exit 1 when a
 * stream is broken, naming its first bad sequence, what broke there and, for a checkpoint problem, which
 * checkpoint; 0 when every stream is intact. `--witness` takes an earlier `verify --json` kept outside the
 * database; a file it cannot read is a usage error (exit 2) and verifies nothing.
 */
@Injectable()
export class EvidenceVerifyCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean; witness?: string } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const witness = options.witness === undefined ? undefined : await readChainWitness(options.witness);
      const verdicts = await configuredEvidenceChain(this.recorder).verify({ witness });
      const intact = verdicts.every((verdict) => verdict.intact);
      if (json) this.streams.out(JSON.stringify({ intact, streams: verdicts }));
      else {
        const rows = verdicts.map((verdict) => ({
          kind: verdict.kind,
          stream: verdict.stream,
          intact: verdict.intact ? 'yes' : 'NO',
          first_bad: verdict.firstBadSequence ?? '-',
          problem: verdict.problem ?? '-',
          checkpoint: verdict.firstBadCheckpoint ?? '-',
          records: verdict.records,
          checkpoints: `${verdict.checkpoints}${verdict.signaturesChecked ? '' : ' (unsigned check)'}`,
          unsealed: verdict.unsealed,
        }));
        this.streams.out(table(rows, COLUMNS));
        for (const broken of verdicts.filter((verdict) => !verdict.intact))
          this.streams.err(
            line`${broken.kind} stream ${broken.stream}: first bad sequence ${String(broken.firstBadSequence)} (${String(broken.problem)}${broken.firstBadCheckpoint === null ? '' : `, checkpoint ${broken.firstBadCheckpoint}`})`,
          );
      }
      if (!intact) process.exitCode = 1;
    } catch (error) {
      if (error instanceof InvalidWitnessFileError)
        return fail(this.streams, json, error.message, USAGE_ERROR_EXIT_CODE);
      fail(this.streams, json, (error as Error).message);
    }
  }
}
