import { v7 } from 'uuid';
import {
  DataClass,
  type DecisionFacts,
  decisionRecord,
  type DecisionRecord,
  fingerprint,
  releaseRecord,
  type ReleaseRecord,
} from '@verdict/nestjs';
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
      id: v7(),
      correlationId: v7(),
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
 * A release record of `stream` (a fresh id and correlation id): customer profile data released, redacted, to a
 * vendor model, recorded at `recordedAt`.
 *
 * @example
 * await recorder.recordRelease(streamRelease('tenant:acme'));
 */
export function streamRelease(stream: string, recordedAt: Date = new Date()): ReleaseRecord {
  return releaseRecord({
    id: v7(),
    correlationId: v7(),
    stream,
    sourceKind: 'application',
    sourceName: 'customer-profile',
    destinationConnection: 'support-model',
    destinationTrustZone: 'vendor',
    classification: DataClass.Pii,
    trust: 'trusted',
    disposition: 'permit',
    reason: 'released',
    requestedPathsFingerprint: fingerprint(['requested']),
    releasedPathsFingerprint: fingerprint(['released']),
    transformedPathsFingerprint: fingerprint(['transformed']),
    transformNamesFingerprint: fingerprint(['redact']),
    transformationCount: 2,
    payloadFingerprint: fingerprint(['payload']),
    recordedAt,
  });
}

/**
 * Appends `count` linked decision records to `stream` on PostgreSQL or MySQL/MariaDB in two statements (a
 * generated series of records, one millisecond apart from 2026-01-01T00:00:00Z, with ids laid out as Verdict's
 * UUIDv7 ids are, and their links), without ANALYZE. Linked already, they are never queued: on PostgreSQL the
 * queue's trigger is off for the seed, inside its transaction, so no other session sees it off and the queue gets no
 * rows (nor dead ones) from it. The links carry placeholder hashes: a seal reads only the stream's head, so the stream
 * does not verify, and a seal links after it as after any head.
 *
 * @example
 * await seedLinkedStream(dataSource, 'tenant:acme', 200_000);
 */
export async function seedLinkedStream(dataSource: DataSource, stream: string, count: number): Promise<void> {
  const postgres = dataSource.options.type === 'postgres';
  const series = postgres ? `generate_series(1, ${count}) AS s(i)` : `seq_1_to_${count} AS s`;
  const i = postgres ? 'i' : 's.seq';
  const prefix = `${stream.slice(-8)}-`;
  // Ids laid out as Verdict's are (UUIDv7: the record's time in milliseconds, then random bits), so the backlog sorts
  // before every record written now, as one grown over time does.
  const millis = `${Date.UTC(2026, 0, 1)} + ${i}`;
  const time = postgres ? `lpad(to_hex(${millis}), 12, '0')` : `LOWER(LPAD(HEX(${millis}), 12, '0'))`;
  const random = postgres ? `md5('${prefix}' || ${i}::text)` : `MD5(CONCAT('${prefix}', CAST(${i} AS CHAR)))`;
  // time_high-time_mid-version '7' and 12 random bits-variant '8' and 12 random bits-48 random bits.
  const parts = [
    `SUBSTRING(${time}, 1, 8)`,
    `SUBSTRING(${time}, 9, 4)`,
    postgres ? `'7' || SUBSTRING(${random}, 1, 3)` : `CONCAT('7', SUBSTRING(${random}, 1, 3))`,
    postgres ? `'8' || SUBSTRING(${random}, 4, 3)` : `CONCAT('8', SUBSTRING(${random}, 4, 3))`,
    `SUBSTRING(${random}, 7, 12)`,
  ];
  const id = postgres ? parts.join(` || '-' || `) : `CONCAT_WS('-', ${parts.join(', ')})`;
  const at = postgres
    ? `timestamptz '2026-01-01 00:00:00+00' + ${i} * interval '1 millisecond'`
    : `TIMESTAMP '2026-01-01 00:00:00' + INTERVAL ${i} * 1000 MICROSECOND`;
  const p = postgres ? '$1' : '?';
  // The trigger that queues what is inserted (ADR 0135).
  const queueing = 'verdict_decision_records DISABLE TRIGGER trg_verdict_decision_records_pending';
  await dataSource.transaction(async (manager) => {
    if (postgres) await manager.query(`ALTER TABLE ${queueing}`);
    await manager.query(
      `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, recorded_at, link_pending)
       SELECT ${id}, ${id}, 0, ${p}, 'orders.refund', 'bound', 'execution', 'permit', 'seeded', ${at}, NULL FROM ${series}`,
      [stream],
    );
    if (postgres) await manager.query(`ALTER TABLE ${queueing.replace('DISABLE', 'ENABLE')}`);
    await manager.query(
      `INSERT INTO verdict_evidence_links (kind, stream, sequence, record_id, previous_hash, hash)
       SELECT 'decision', ${p}, ${i}, ${id}, '${'0'.repeat(64)}', '${'1'.repeat(64)}' FROM ${series}`,
      [stream],
    );
  });
}

/**
 * Marks the decision records that `where` (a condition on `verdict_decision_records`, with `parameters`: `$1`, `$2`, …
 * on every engine, each used once and in order) selects as
 * pending (`pending: true`: a seal links them) or not (a seal leaves them), as a seal's bookkeeping keeps it on the
 * DataSource's engine: PostgreSQL's queue table, the `link_pending` column elsewhere. What someone who can write the
 * tables does, for tamper tests.
 *
 * @example
 * await markPending(dataSource, 'stream = $1', [stream], false);
 */
export async function markPending(
  dataSource: DataSource,
  where: string,
  parameters: readonly unknown[],
  pending: boolean,
): Promise<void> {
  if (dataSource.options.type !== 'postgres')
    return void (await dataSource.query(
      `UPDATE verdict_decision_records SET link_pending = ${pending ? '1' : 'NULL'} WHERE ${where.replaceAll(/\$\d+/g, '?')}`,
      [...parameters],
    ));
  await dataSource.query(
    pending
      ? `INSERT INTO verdict_evidence_pending (kind, stream, recorded_at, record_id) SELECT 'decision', stream, recorded_at, id FROM verdict_decision_records WHERE ${where} ON CONFLICT DO NOTHING`
      : `DELETE FROM verdict_evidence_pending WHERE kind = 'decision' AND record_id IN (SELECT id FROM verdict_decision_records WHERE ${where})`,
    [...parameters],
  );
}
