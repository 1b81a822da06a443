import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { USAGE_ERROR_EXIT_CODE } from './cli-program.js';
import { configuredEvidenceChain } from './configured-evidence-chain.js';
import { instant } from './iso-instant.js';

/**
 * `evidence prune --before <date> [--json]`: deletes chained evidence recorded before `<date>` (an ISO 8601 date,
 * read as UTC midnight, or an instant with its zone), stream by stream, and leaves a signed prune checkpoint so what
 * remains still verifies. Needs a checkpoint key that can sign. Anything else as the date (another format, an instant
 * without a zone, which would be read in the process's own time zone) is a usage error (exit 2) and deletes nothing,
 * as for `evidence list --since`.
 */
@Injectable()
export class EvidencePruneCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceRecorder) private readonly recorder: EvidenceRecorder,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean; before?: string } = {}): Promise<void> {
    const json = options.json === true;
    let before: Date | undefined;
    try {
      before = instant('--before', options.before);
    } catch {
      before = undefined;
    }
    if (before === undefined)
      return fail(
        this.streams,
        json,
        `--before needs an ISO 8601 date or instant with a zone (e.g. 2026-01-01 or 2026-01-01T00:00:00Z), not "${options.before ?? ''}"`,
        USAGE_ERROR_EXIT_CODE,
      );
    try {
      const report = await configuredEvidenceChain(this.recorder).prune(before);
      this.streams.out(
        json
          ? JSON.stringify({ before: before.toISOString(), ...report })
          : line`pruned ${report.pruned} record(s) recorded before ${before.toISOString()}; ${report.anchored} stream(s) anchored by a signed checkpoint`,
      );
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
