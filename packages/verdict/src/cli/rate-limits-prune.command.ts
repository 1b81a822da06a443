import { Inject, Injectable, Optional } from '@nestjs/common';
import { ExecutionClaimsService } from '../execution-claims/execution-claims.service.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

/** `rate-limits prune [--json]`: deletes rate-limit windows that have ended. */
@Injectable()
export class RateLimitsPruneCommand implements CliCommandRunner {
  constructor(
    private readonly claims: ExecutionClaimsService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const pruned = await this.claims.pruneRateLimits();
      this.streams.out(json ? JSON.stringify({ pruned }) : line`pruned ${pruned} ended rate-limit window(s)`);
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
