import { Inject, Injectable, Optional } from '@nestjs/common';
import { ContainmentService } from '../containment/containment.service.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

const COLUMNS = ['scope', 'subject', 'engaged_by', 'operator_identity', 'engaged_at', 'reason'] as const;

/**
 * `contain list [--json]`: every engaged kill switch, oldest first. Actor and tenant subjects are
 * fingerprints (`sha256(key)`): compare with `fingerprintString(key)`.
 */
@Injectable()
export class ContainListCommand implements CliCommandRunner {
  constructor(
    private readonly containment: ContainmentService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const rows = (await this.containment.list()).map((containment) => ({
        scope: containment.scope,
        subject: containment.subject,
        engaged_by: containment.engagedBy,
        operator_identity: containment.operatorIdentity ?? '',
        engaged_at: containment.engagedAt.toISOString(),
        reason: containment.reason,
      }));
      this.streams.out(json ? JSON.stringify(rows) : table(rows, COLUMNS));
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
