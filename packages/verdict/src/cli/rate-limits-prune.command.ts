import { Inject, Optional } from '@nestjs/common';
import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { ExecutionClaimsService } from '../execution-claims/execution-claims.service.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';

/** `rate-limits prune [--json]`: deletes rate-limit windows that have ended. */
@SubCommand({ name: 'prune', description: 'Delete rate-limit windows that have ended' })
export class RateLimitsPruneCommand extends CommandRunner {
  constructor(
    private readonly claims: ExecutionClaimsService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const pruned = await this.claims.pruneRateLimits();
      this.streams.out(json ? JSON.stringify({ pruned }) : `pruned ${pruned} ended rate-limit window(s)`);
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }

  @Option({ flags: '--json', description: 'Print JSON for scripts' })
  parseJson(): boolean {
    return true;
  }
}
