import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceChainBrokenError } from '../evidence/evidence-chain-broken.error.js';
import type { PruneReport } from '../evidence/evidence-chain.interface.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { checkedPruneCutoff } from '../evidence/evidence-filter.js';
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
 * without a zone, which would be read in the process's own time zone, an instant outside the years 0001–9999 UTC,
 * which SQLite and MariaDB cannot compare) is a usage error (exit 2) and deletes nothing,
 * as for `evidence list --since`. A prune that refuses a stream changed since it verified it (exit 1) still prints what
 * it pruned of the others, as it would have on success, before the error.
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
      const given = instant('--before', options.before);
      // The recorders refuse it too; refused here, it is a usage error (exit 2), as `evidence list --until` is.
      before = given === undefined ? undefined : checkedPruneCutoff(given);
    } catch {
      before = undefined;
    }
    if (before === undefined)
      return fail(
        this.streams,
        json,
        `--before needs an ISO 8601 date or instant with a zone in the years 0001 to 9999 (UTC) (e.g. 2026-01-01 or 2026-01-01T00:00:00Z), not "${options.before ?? ''}"`,
        USAGE_ERROR_EXIT_CODE,
      );
    try {
      this.report(json, before, await configuredEvidenceChain(this.recorder).prune(before));
    } catch (error) {
      // A prune that refused a stream after pruning others: what it pruned is printed as well, and it still fails.
      if (error instanceof EvidenceChainBrokenError && error.pruned !== undefined)
        this.report(json, before, error.pruned);
      fail(this.streams, json, (error as Error).message);
    }
  }

  /** Prints what was pruned on stdout: a line, or `{ before, pruned, anchored }` with `--json`. */
  private report(json: boolean, before: Date, report: PruneReport): void {
    this.streams.out(
      json
        ? JSON.stringify({ before: before.toISOString(), ...report })
        : line`pruned ${report.pruned} record(s) recorded before ${before.toISOString()}; ${report.anchored} stream(s) anchored by a signed checkpoint`,
    );
  }
}
