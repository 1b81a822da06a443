import { Inject, Injectable, Optional } from '@nestjs/common';
import { ExecutionClaimsService } from '../execution-claims/execution-claims.service.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

const COLUMNS = ['id', 'capability', 'policy', 'status', 'attempt', 'claimed_at', 'updated_at'] as const;

/** `claims list [--json]`: unresolved claims (`claimed`, `indeterminate`), oldest first. The binding is never shown. */
@Injectable()
export class ClaimsListCommand implements CliCommandRunner {
  constructor(
    private readonly claims: ExecutionClaimsService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

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
}
