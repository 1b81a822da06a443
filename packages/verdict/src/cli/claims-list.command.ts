import { Inject, Optional } from '@nestjs/common';
import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { ExecutionClaimsService } from '../execution-claims/execution-claims.service.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';

const COLUMNS = ['id', 'capability', 'policy', 'status', 'attempt', 'claimed_at', 'updated_at'] as const;

/** `claims list [--json]`: unresolved claims (`claimed`, `indeterminate`), oldest first. The binding is never shown. */
@SubCommand({ name: 'list', description: 'List execution claims that are still claimed or indeterminate' })
export class ClaimsListCommand extends CommandRunner {
  constructor(
    private readonly claims: ExecutionClaimsService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {
    super();
  }

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const rows = (await this.claims.unresolved()).map((claim) => ({
        id: claim.id,
        capability: claim.capability,
        policy: claim.policy,
        status: claim.status,
        attempt: claim.attempt,
        claimed_at: claim.claimedAt.toISOString(),
        updated_at: claim.updatedAt.toISOString(),
      }));
      this.streams.out(json ? JSON.stringify(rows) : table(rows, COLUMNS));
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }

  @Option({ flags: '--json', description: 'Print JSON for scripts' })
  parseJson(): boolean {
    return true;
  }
}
