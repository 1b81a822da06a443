import { Inject, Injectable, Optional } from '@nestjs/common';
import { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import type { ShadowSummaryRow } from '../evidence/shadow-summary.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { instant } from './iso-instant.js';

interface SummaryOptions {
  readonly capability?: string;
  readonly since?: string;
  readonly until?: string;
  readonly json?: boolean;
}

const COLUMNS = ['capability', 'stage', 'would', 'calls', 'records', 'reason'] as const;

/**
 * `evidence shadow-summary [--capability <name>] [--since <ISO 8601>] [--until <ISO 8601>] [--json]`: what
 * enforcement would have refused (docs/shadow-mode.md) — the shadow records counted per capability, stage,
 * disposition and reason, most calls first. A filter it cannot answer exits 2 and reads nothing.
 */
@Injectable()
export class EvidenceShadowSummaryCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceQuery) private readonly evidence: EvidenceQuery,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: SummaryOptions = {}): Promise<void> {
    const json = options.json === true;
    try {
      if (this.evidence.shadowSummary === undefined)
        throw new VerdictConfigurationError(
          'The configured evidence query has no shadowSummary: use TypeOrmEvidenceQuery or InMemoryEvidenceQuery.',
        );
      const rows = await this.evidence.shadowSummary({
        capability: options.capability,
        since: instant('--since', options.since),
        until: instant('--until', options.until),
      });
      this.streams.out(json ? JSON.stringify(rows) : text(rows));
    } catch (error) {
      fail(this.streams, json, (error as Error).message, error instanceof InvalidEvidenceFilterError ? 2 : 1);
    }
  }
}

/** The table, and a line per capability with its total of calls enforcement would have refused or held. */
function text(rows: readonly ShadowSummaryRow[]): string {
  if (rows.length === 0) return 'Nothing recorded in shadow mode: enforcement would have refused none of these calls.';
  const shown = rows.map((row) => ({
    capability: row.capability,
    stage: row.stage,
    would: row.disposition === 'would_deny' ? 'deny' : 'confirm',
    calls: row.calls,
    records: row.records,
    reason: row.reason,
  }));
  return table(shown, COLUMNS);
}
