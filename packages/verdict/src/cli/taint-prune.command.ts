import { Inject, Injectable, Optional } from '@nestjs/common';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import {
  PROVENANCE_STAGE_OPTIONS,
  type ProvenanceStageOptions,
} from '../provenance/provenance-stage-options.interface.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

/** `taint prune [--json]`: deletes the taint ledger's expired entries (`provenance.taint.retentionDays`). */
@Injectable()
export class TaintPruneCommand implements CliCommandRunner {
  constructor(
    @Inject(PROVENANCE_STAGE_OPTIONS) private readonly options: ProvenanceStageOptions,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const ledger = this.options.provenance?.taint?.ledger;
      if (ledger === undefined)
        throw new VerdictConfigurationError(
          'No taint ledger is configured: pass `provenance: { taint: { ledger } }` to VerdictModule.forRoot.',
        );
      const pruned = await ledger.prune((this.options.clock ?? (() => new Date()))());
      this.streams.out(
        json ? JSON.stringify({ pruned }) : line`pruned ${pruned} expired taint ${pruned === 1 ? 'entry' : 'entries'}`,
      );
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
