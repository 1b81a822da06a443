import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DecisionRecord } from '../evidence/decision-record.js';
import { EVIDENCE_LIST_LIMIT, type EvidenceFilter } from '../evidence/evidence-filter.js';
import { evidenceCursor } from '../evidence/evidence-cursor.js';
import { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { instant } from './iso-instant.js';
import { positiveInteger } from './decimal-integer.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { evidenceJson } from './evidence-json.js';

interface ListOptions {
  readonly capability?: string;
  readonly disposition?: string;
  readonly shadow?: boolean;
  readonly stage?: string;
  readonly actor?: string;
  readonly toolCall?: string;
  readonly since?: string;
  readonly until?: string;
  readonly limit?: string;
  readonly after?: string;
  readonly json?: boolean;
}

const COLUMNS = ['recorded_at', 'correlation_id', 'seq', 'capability', 'tool_kind', 'stage', 'disposition'] as const;
/** With `--shadow`, each record's reason too: what enforcement would have refused, and why. */
const SHADOW_COLUMNS = [...COLUMNS, 'reason'] as const;

/**
 * `evidence list [--capability <name>] [--disposition <d>] [--shadow] [--stage <s>] [--actor <fingerprint>]
 * [--tool-call <fingerprint>] [--since <ISO 8601>] [--until <ISO 8601>] [--limit <n>] [--after <cursor>] [--json]`:
 * decision records, newest first (default 100, at most 1000); `--shadow` keeps only what shadow mode did not enforce
 * (`would_deny`, `would_confirm`), with each record's reason. A full page says on stderr how to list the next one
 * (`next page: --after <cursor>`, the cursor of its last record), so stdout stays the table or the JSON. A filter it cannot answer exits 2 and reads nothing, as does a
 * `--limit` not written in decimal digits (`1e2`, `0x10`, `5.0`): it is never coerced.
 */
@Injectable()
export class EvidenceListCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceQuery) private readonly evidence: EvidenceQuery,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: ListOptions = {}): Promise<void> {
    const json = options.json === true;
    try {
      const filter = filterOf(options);
      const records = await this.evidence.list(filter);
      const columns = options.shadow === true ? SHADOW_COLUMNS : COLUMNS;
      this.streams.out(json ? JSON.stringify(records.map(evidenceJson)) : table(records.map(row), columns));
      const last = records[records.length - 1];
      if (last !== undefined && records.length === (filter.limit ?? EVIDENCE_LIST_LIMIT.default)) {
        const after = evidenceCursor(last);
        this.streams.err(json ? JSON.stringify({ nextPage: { after } }) : `next page: --after ${after}`);
      }
    } catch (error) {
      fail(this.streams, json, (error as Error).message, error instanceof InvalidEvidenceFilterError ? 2 : 1);
    }
  }
}

/** The command's flags as an {@link EvidenceFilter}; `EvidenceQuery` checks it. */
function filterOf(options: ListOptions): EvidenceFilter {
  return {
    capability: options.capability,
    disposition: options.disposition as EvidenceFilter['disposition'],
    shadow: options.shadow === true ? true : undefined,
    stage: options.stage as EvidenceFilter['stage'],
    actorFingerprint: options.actor,
    toolCallFingerprint: options.toolCall,
    since: instant('--since', options.since),
    until: instant('--until', options.until),
    limit: positiveInteger('--limit', options.limit),
    after: options.after,
  };
}

function row(record: DecisionRecord): Record<string, string | number> {
  return {
    recorded_at: record.recordedAt.toISOString(),
    correlation_id: record.correlationId,
    seq: record.sequence,
    capability: record.capability,
    tool_kind: record.toolKind,
    stage: record.stage,
    disposition: record.disposition,
    reason: record.reason,
  };
}
