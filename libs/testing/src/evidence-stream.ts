import { randomUUID } from 'node:crypto';
import { type DecisionFacts, decisionRecord, type DecisionRecord } from '@verdict/nestjs';
import type { DataSource } from 'typeorm';

/**
 * A permitted `orders.refund` decision record of `stream` (a fresh id and correlation id), told apart by
 * `reason`: what the evidence chain specs and benches append. It is an `execution` record without facts
 * unless `extra` names another stage or the facts it carries.
 *
 * @example
 * await recorder.recordDecision(streamDecision('tenant:acme', 'refund 1'));
 * await recorder.recordDecision(streamDecision('tenant:acme', 'refund 2', new Date(), { facts: { claimAttempt: 2 } }));
 */
export function streamDecision(
  stream: string,
  reason: string,
  recordedAt: Date = new Date(),
  extra: { readonly stage?: DecisionRecord['stage']; readonly facts?: DecisionFacts } = {},
): DecisionRecord {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId: randomUUID(),
      sequence: 0,
      stream,
      capability: 'orders.refund',
      toolKind: 'bound',
      stage: extra.stage ?? 'execution',
      disposition: 'permit',
      reason,
      recordedAt,
    },
    extra.facts ?? {},
  );
}

/**
 * Appends `count` linked decision records to `stream` on PostgreSQL or MySQL/MariaDB in two statements (a
 * generated series of records, one millisecond apart from 2026-01-01T00:00:00Z, and their links), without
 * ANALYZE. The links carry placeholder hashes: a seal reads only the stream's head, so the stream does not
 * verify, and a seal links after it as after any head.
 *
 * @example
 * await seedLinkedStream(dataSource, 'tenant:acme', 200_000);
 */
export async function seedLinkedStream(dataSource: DataSource, stream: string, count: number): Promise<void> {
  const postgres = dataSource.options.type === 'postgres';
  const series = postgres ? `generate_series(1, ${count}) AS s(i)` : `seq_1_to_${count} AS s`;
  const i = postgres ? 'i' : 's.seq';
  const prefix = `${stream.slice(-8)}-`;
  const id = postgres ? `'${prefix}' || ${i}::text` : `CONCAT('${prefix}', CAST(${i} AS CHAR))`;
  const at = postgres
    ? `timestamptz '2026-01-01 00:00:00+00' + ${i} * interval '1 millisecond'`
    : `TIMESTAMP '2026-01-01 00:00:00' + INTERVAL ${i} * 1000 MICROSECOND`;
  const p = postgres ? '$1' : '?';
  await dataSource.query(
    `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, recorded_at, link_pending)
     SELECT ${id}, ${id}, 0, ${p}, 'orders.refund', 'bound', 'execution', 'permit', 'seeded', ${at}, NULL FROM ${series}`,
    [stream],
  );
  await dataSource.query(
    `INSERT INTO verdict_evidence_links (kind, stream, sequence, record_id, previous_hash, hash)
     SELECT 'decision', ${p}, ${i}, ${id}, '${'0'.repeat(64)}', '${'1'.repeat(64)}' FROM ${series}`,
    [stream],
  );
}
