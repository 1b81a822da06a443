import type { DataSource } from 'typeorm';

/**
 * Inserts `rows` decision records on PostgreSQL in one `generate_series` statement, one second apart from
 * 2031-01-01T00:00:00Z, shaped like traffic: most records are permits of five busy capabilities (`cap.0`–`cap.4`);
 * what an operator looks for is rare (`orders.refund` 0.2%, `throttle` and `rate_limit` 0.5% each). Record `i`
 * has id `r<i>`, correlation id `c<i / 4>` (four stages a run), tool-call fingerprint `sha256('call_<i>')` and
 * actor fingerprint `sha256('actor_<i % actors>')`. Then ANALYZE, so the planner knows the shape.
 *
 * @example
 * await seedTrafficShapedEvidence(dataSource, 50_000, 2_000);
 */
export async function seedTrafficShapedEvidence(dataSource: DataSource, rows: number, actors: number): Promise<void> {
  await dataSource.query(`
    INSERT INTO verdict_decision_records
      (id, correlation_id, sequence, capability, tool_kind, stage, disposition, reason,
       tool_call_fingerprint, actor_fingerprint, recorded_at)
    SELECT 'r' || i, 'c' || (i / 4), i % 4,
      CASE WHEN i % 500 = 0 THEN 'orders.refund' ELSE 'cap.' || (i % 5) END, 'bound',
      CASE WHEN i % 200 = 1 THEN 'rate_limit' ELSE (ARRAY['proposal','target_refresh','execution'])[1 + i % 3] END,
      CASE WHEN i % 200 = 2 THEN 'throttle' ELSE (ARRAY['permit','permit','permit','deny'])[1 + i % 4] END,
      'seeded', encode(sha256(('call_' || i)::bytea), 'hex'), encode(sha256(('actor_' || (i % ${actors}))::bytea), 'hex'),
      timestamptz '2031-01-01 00:00:00+00' + i * interval '1 second'
    FROM generate_series(1, ${rows}) AS i`);
  await dataSource.query('ANALYZE verdict_decision_records');
}
