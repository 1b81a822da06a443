import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DecisionRecord } from '../evidence/decision-record.js';
import { EvidenceQuery } from '../evidence/evidence-query.interface.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { evidenceJson } from './evidence-json.js';

const COLUMNS = ['seq', 'at', 'stage', 'disposition', 'facts', 'reason'] as const;

/**
 * `evidence show <correlation-id> [--json]`: one proposal's records as a stage timeline, in pipeline order, with
 * the time since the first record and the facts each stage added. Exits 1 when there is no such run.
 */
@Injectable()
export class EvidenceShowCommand implements CliCommandRunner {
  constructor(
    @Inject(EvidenceQuery) private readonly evidence: EvidenceQuery,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run([correlationId]: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const records = await this.evidence.run(correlationId);
      if (records.length === 0) return fail(this.streams, json, `no evidence for correlation id ${correlationId}`);
      this.streams.out(
        json ? JSON.stringify({ correlationId, records: records.map(evidenceJson) }) : timeline(correlationId, records),
      );
    } catch (error) {
      fail(this.streams, json, (error as Error).message, error instanceof InvalidEvidenceFilterError ? 2 : 1);
    }
  }
}

function timeline(correlationId: string, records: readonly DecisionRecord[]): string {
  const [first] = records;
  const start = first.recordedAt.getTime();
  const last = records[records.length - 1];
  const rows = records.map((record, i) => ({
    seq: record.sequence,
    at: `+${record.recordedAt.getTime() - start}ms`,
    stage: record.stage,
    disposition: record.disposition,
    facts: addedFacts(records[i - 1], record),
    reason: record.reason,
  }));
  return [
    line`run ${correlationId}: ${first.capability} (${first.toolKind}), ${last.disposition} at ${last.stage}`,
    line`started ${first.recordedAt.toISOString()}`,
    line`actor ${first.actorFingerprint ?? '-'}  tool call ${first.toolCallFingerprint ?? '-'}  arguments ${first.argumentsFingerprint ?? '-'}`,
    '',
    table(rows, COLUMNS),
  ].join('\n');
}

/** The stage facts a record carries that its predecessor did not (fingerprints shortened to 12 digits). */
function addedFacts(previous: DecisionRecord | undefined, record: DecisionRecord): string {
  const before = new Map(previous === undefined ? [] : stageFacts(previous));
  return (
    stageFacts(record)
      .filter(([name, value]) => value !== null && before.get(name) !== value)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(' ') || '-'
  );
}

function stageFacts(record: DecisionRecord): Array<[string, string | boolean | null]> {
  return [
    ['identity_match', record.identityMatch],
    ['approval', record.approvalPhase === null ? null : `${record.approvalPhase}/${record.approvalOutcome ?? '-'}`],
    ['receipt', short(record.receiptFingerprint)],
    [
      'rate_limit',
      record.rateLimitLimit === null ? null : `${record.rateLimitRemaining ?? '-'}/${record.rateLimitLimit}`,
    ],
    ['claim', record.claimStatus === null ? null : `${record.claimStatus}#${record.claimAttempt ?? '-'}`],
  ];
}

function short(value: string | null): string | null {
  return value === null ? null : value.slice(0, 12);
}
