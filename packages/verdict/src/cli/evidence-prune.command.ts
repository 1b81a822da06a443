import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { USAGE_ERROR_EXIT_CODE } from './cli-program.js';
import { configuredEvidenceChain } from './configured-evidence-chain.js';

/**
 * `evidence prune --before <date> [--json]`: deletes chained evidence recorded before `<date>` (ISO 8601),
 * stream by stream, and leaves a signed prune checkpoint so what remains still verifies. Needs a
 * checkpoint key that can sign; a date that does not parse is a usage error (exit 2) and deletes nothing.
 */
@Injectable()
export class EvidencePruneCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean; before?: string } = {}): Promise<void> {
    const json = options.json === true;
    const before = new Date(options.before ?? '');
    if (options.before === undefined || Number.isNaN(before.getTime()))
      return fail(
        this.streams,
        json,
        `--before needs an ISO 8601 date (e.g. 2026-01-01T00:00:00Z), not "${options.before ?? ''}"`,
        USAGE_ERROR_EXIT_CODE,
      );
    try {
      const report = await configuredEvidenceChain(this.recorder).prune(before);
      this.streams.out(
        json
          ? JSON.stringify({ before: before.toISOString(), ...report })
          : `pruned ${report.pruned} record(s) recorded before ${before.toISOString()}; ${report.anchored} stream(s) anchored by a signed checkpoint`,
      );
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
