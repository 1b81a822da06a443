// What a seal costs as a stream grows, and how long writers leave records unlinked (issue 22, target 4;
// ADR 0062, ADR 0140). Two fresh schemas, never analyzed nor vacuumed (the statements must not depend on
// statistics; autovacuum is off on their seal tables while seals are timed), each bulk-loaded with one stream of linked
// records (a generated series with ids spread over the key space as random UUIDs are; the seal reads only the
// stream's head, so the links carry placeholder hashes, and the records are not queued): BENCH_SEAL_SMALL (default
// 10,000) in one, BENCH_SEAL_LARGE (default 200,000; 1,000,000 is what the target names, about half a minute's load
// per engine here) in the other. A backlog grown over months is not one loaded a second ago, so each load settles
// first: PostgreSQL a CHECKPOINT, MariaDB its dirty pages flushed, then `sync`. The two are then measured taking
// turns, in alternating order round by round, so both see the same machine: BENCH_SEAL_WARMUP untimed rounds (default
// 10) and BENCH_SEAL_ROUNDS timed ones (default 15), each writing one batch of 500 records to the stream and timing
// `seal()` (with a checkpoint key: every batch also signs a checkpoint), then a `seal()` with nothing to link. For
// reference, the statement the seal used before ADR 0062 (an anti-join of the stream's records with the links) is
// timed once per size.
//
// Targets: a batch at the large size within ±20% of one at the small size; at 20 writers appending flat out to one
// stream of the small schema for BENCH_SEAL_SECONDS (default 5) with the background seal (and autovacuum on), no
// record found unlinked (sampled every 50 ms, each sample stamped when it returned) longer than the documented bound
// after its write returned (1 s at the default `sealDelayMs`: the delay plus two seal rounds, ADR 0079).
//
// Needs VERDICT_TEST_POSTGRES_URL and/or VERDICT_TEST_MARIADB_URL; an engine without its URL is skipped.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, seedLinkedStream, streamDecision } from '@verdict/testing-kit';
import { forEachEngine } from './database-bench.js';
import { table, target } from './report.js';
import { fmt, median } from './stats.js';

const SMALL = Number(process.env.BENCH_SEAL_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_SEAL_LARGE ?? 200_000);
const ROUNDS = Number(process.env.BENCH_SEAL_ROUNDS ?? 15);
const WARMUP = Number(process.env.BENCH_SEAL_WARMUP ?? 10);
const SECONDS = Number(process.env.BENCH_SEAL_SECONDS ?? 5);
const BATCH = 500;
const WRITERS = 20;
/** The documented bound on how long a record stays unlinked at the default `sealDelayMs` (docs/evidence.md). */
const UNLINKED_BOUND_MS = 1000;
const KEY = { algorithm: 'hmac-sha256', keyId: 'bench', secret: 'bench secret' };

/** The statement the seal found unlinked records with before ADR 0062, timed once (ms). */
async function antiJoin(dataSource, engine, stream) {
  const p = engine.name === 'postgres' ? '$1' : '?';
  const started = performance.now();
  await dataSource.query(
    `SELECT r.id FROM verdict_decision_records r WHERE r.stream = ${p} AND NOT EXISTS (SELECT 1 FROM verdict_evidence_links l WHERE l.kind = 'decision' AND l.record_id = r.id) ORDER BY r.recorded_at, r.id LIMIT ${BATCH}`,
    [stream],
  );
  return performance.now() - started;
}

/** The seal's tables. */
const SEALED = [
  'verdict_decision_records',
  'verdict_evidence_links',
  'verdict_evidence_pending',
  'verdict_evidence_checkpoints',
];

/**
 * Turns autovacuum off (or on again) on the seal's tables of a bench schema (PostgreSQL): the timed batches run on a
 * schema never analyzed nor vacuumed, the writers under load as in production.
 */
async function autovacuum(dataSource, engine, enabled) {
  if (engine.name !== 'postgres') return;
  for (const sealed of SEALED) await dataSource.query(`ALTER TABLE ${sealed} SET (autovacuum_enabled = ${enabled})`);
}

/**
 * What a backlog grown over time has and a load of a second ago has not: its pages written out. PostgreSQL: a
 * CHECKPOINT. MariaDB: the buffer pool's dirty pages flushed (`innodb_max_dirty_pages_pct` and its low-water mark at
 * 0 until they are, then set back). Both: the operating system's cache written to disk (`sync`). Answers the seconds
 * it took.
 */
async function settle(admin, engine) {
  const started = performance.now();
  if (engine.name === 'postgres') await admin.query('CHECKPOINT');
  else {
    const [{ pct, lwm }] = await admin.query(
      'SELECT @@GLOBAL.innodb_max_dirty_pages_pct AS pct, @@GLOBAL.innodb_max_dirty_pages_pct_lwm AS lwm',
    );
    await admin.query('SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0, GLOBAL innodb_max_dirty_pages_pct = 0');
    try {
      const deadline = performance.now() + 300_000;
      for (;;) {
        const [{ Value: dirty }] = await admin.query("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'");
        if (Number(dirty) < 100) break;
        if (performance.now() > deadline) throw new Error(`${dirty} dirty pages left after 300 s of flushing`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await admin.query(
        `SET GLOBAL innodb_max_dirty_pages_pct = ${Number(pct)}, GLOBAL innodb_max_dirty_pages_pct_lwm = ${Number(lwm)}`,
      );
    }
  }
  // So the operating system's write-back of the load does not hold up the timed batches' commits.
  execFileSync('sync');
  return (performance.now() - started) / 1000;
}

/**
 * For each of `sides` (a recorder and its stream): the median ms of a `seal()` linking one batch of 500 and of a
 * `seal()` with nothing to link, after WARMUP untimed rounds. The sides take turns, in alternating order round by
 * round, so the machine's state is the same for each.
 */
async function sealCosts(sides) {
  const write = ({ recorder, stream }, label) =>
    recorder.recordDecisions(Array.from({ length: BATCH }, (_, i) => streamDecision(stream, `${label} ${i}`)));
  const order = (round) => (round % 2 === 0 ? [...sides.entries()] : [...sides.entries()].reverse());
  for (let round = 0; round < WARMUP; round++)
    for (const [, side] of order(round)) {
      await write(side, 'warm-up');
      await side.recorder.seal();
    }
  const costs = sides.map(() => ({ batch: [], idle: [] }));
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, side] of order(round)) {
      await write(side, 'record');
      let started = performance.now();
      const report = await side.recorder.seal();
      costs[i].batch.push(performance.now() - started);
      if (report.sealed !== BATCH) throw new Error(`the seal linked ${report.sealed} records, not ${BATCH}`);
      started = performance.now();
      await side.recorder.seal();
      costs[i].idle.push(performance.now() - started);
    }
  return costs.map(({ batch, idle }) => ({ batch: median(batch), idle: median(idle) }));
}

/** 20 writers appending flat out with the background seal: how long records stayed unlinked. */
async function unlinkedUnderLoad(admin, engine) {
  const dataSource = await new DataSource({ ...admin.options, migrations: [], poolSize: WRITERS + 3 }).initialize();
  try {
    const stream = `bench:${randomUUID()}`;
    const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY });
    // The queue as the seal reads it: PostgreSQL's queue table, MariaDB's pending index named (a sample that scanned
    // the table would last longer and stamp what it saw later than it saw it).
    const pending =
      engine.name === 'postgres'
        ? `SELECT record_id AS id FROM verdict_evidence_pending WHERE kind = 'decision' AND stream = $1`
        : `SELECT id FROM verdict_decision_records FORCE INDEX (idx_verdict_decision_records_link_pending) WHERE link_pending = 1 AND stream = ?`;
    let written = 0;
    let maxUnlinked = 0;
    // When each write returned, and the last sample that still found its record unlinked: the record's unlinked
    // time is the difference (a write's own latency under load is not counted against the seal).
    const returned = new Map();
    const lastSeen = new Map();
    const deadline = performance.now() + SECONDS * 1000;
    const writers = Array.from({ length: WRITERS }, async () => {
      while (performance.now() < deadline) {
        const record = streamDecision(stream, `record ${written++}`);
        await recorder.recordDecision(record);
        returned.set(record.id, performance.now());
      }
    });
    const sample = async () => {
      const rows = await dataSource.query(pending, [stream]);
      const now = performance.now();
      for (const { id } of rows) lastSeen.set(id, now);
      maxUnlinked = Math.max(maxUnlinked, rows.length);
      return rows.length;
    };
    const sampler = (async () => {
      while (performance.now() < deadline) {
        await sample();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await Promise.all([...writers, sampler]);
    const started = performance.now();
    // Until the seal has caught up, samples go on: a record still unlinked after the writers stopped counts too.
    while ((await sample()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await recorder.whenSealed();
    const catchUpMs = performance.now() - started;
    let maxAgeMs = 0;
    for (const [id, seen] of lastSeen) maxAgeMs = Math.max(maxAgeMs, seen - (returned.get(id) ?? seen));
    const [verdict] = (await recorder.verify()).filter((v) => v.stream === stream);
    if (!verdict?.intact || verdict.unsealed !== 0)
      throw new Error(`the stream does not verify: ${JSON.stringify(verdict)}`);
    return { written, rate: written / SECONDS, maxAgeMs, maxUnlinked, catchUpMs };
  } finally {
    await dataSource.destroy();
  }
}

const costs = [];
const loads = [];
await forEachEngine(async (engine, admin) => {
  // The small backlog in a schema of its own, the large one in the bench's: each in tables of its size.
  const smallSchema = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
  try {
    const sides = [];
    for (const [dataSource, size] of [
      [smallSchema, SMALL],
      [admin, LARGE],
    ]) {
      await autovacuum(dataSource, engine, false);
      const stream = `bench:${randomUUID()}`;
      const started = performance.now();
      await seedLinkedStream(dataSource, stream, size);
      const loading = (performance.now() - started) / 1000;
      console.log(
        `${engine.name}: loaded ${size} linked records in ${fmt(loading, 1)} s, settled in ${fmt(await settle(dataSource, engine), 1)} s`,
      );
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual', checkpointKey: KEY });
      sides.push({ dataSource, size, stream, recorder });
    }
    const measured = await sealCosts(sides);
    for (const [i, { dataSource, size, stream }] of sides.entries())
      costs.push({
        engine: engine.name,
        backlog: size,
        ...measured[i],
        antiJoin: await antiJoin(dataSource, engine, stream),
      });
    // The writers run in the small schema's tables, as in production: with autovacuum.
    await autovacuum(smallSchema, engine, true);
    loads.push({ engine: engine.name, ...(await unlinkedUnderLoad(smallSchema, engine)) });
  } finally {
    await dropDataSource(smallSchema);
  }
});

if (costs.length > 0) {
  table(
    `seal() of one batch of ${BATCH} records on a fresh schema, by records already in the stream (median of ${ROUNDS}; ms; the two sizes took turns)`,
    costs.map((row) => ({
      engine: row.engine,
      backlog: row.backlog,
      batch_ms: fmt(row.batch, 1),
      nothing_to_link_ms: fmt(row.idle, 1),
      'anti-join before ADR 0062 (ms)': fmt(row.antiJoin, 1),
    })),
  );
  table(
    `${WRITERS} writers appending flat out to one stream for ${SECONDS} s with the background seal`,
    loads.map((row) => ({
      engine: row.engine,
      'records/s': fmt(row.rate, 0),
      max_unlinked: row.maxUnlinked,
      longest_unlinked_ms: fmt(row.maxAgeMs, 0),
      catch_up_ms: fmt(row.catchUpMs, 0),
    })),
  );
  for (const engine of [...new Set(costs.map((row) => row.engine))]) {
    const [small, large] = costs.filter((row) => row.engine === engine);
    const ratio = large.batch / small.batch;
    console.log(
      target(
        `${engine} seal batch at ${large.backlog} records within ±20% of one at ${small.backlog} (${fmt(ratio, 2)}x)`,
        ratio >= 0.8 && ratio <= 1.2,
      ),
    );
  }
  for (const row of loads)
    console.log(
      target(
        `${row.engine} longest a record stayed unlinked at ${WRITERS} writers <= ${UNLINKED_BOUND_MS} ms (${fmt(row.maxAgeMs, 0)} ms)`,
        row.maxAgeMs <= UNLINKED_BOUND_MS,
      ),
    );
}
