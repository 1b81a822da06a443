// Chained against unchained evidence appends at 1, 5 and 20 concurrent writers in the same run (ADR 0021):
// - unchained: TypeOrmEvidenceRecorder with `seal: 'manual'`, one INSERT per record (the baseline);
// - locked head: the candidate design where every append takes its stream's lock, reads the head and
//   inserts the record and its link (a transaction of 6 statements per record);
// - sealed: TypeOrmEvidenceRecorder as shipped: one INSERT per record, and a background seal per
//   process that links what was written in batches under the stream's lock (one multi-row INSERT of
//   narrow link rows per batch).
// - sealed + signed: the same with an HMAC checkpoint key, so every batch also reads the stream's checkpoint
//   head and writes the next checkpoint of the checkpoint chain (ADR 0034).
// All writers append to ONE stream (one tenant's traffic: the worst case for a chain) through one
// DataSource (one application node). Target (issue 13): chained >= 80% of the unchained rate at 20
// writers, for the shipped sealed variants (locked head is the rejected candidate, shown for comparison).
// After each sealed slice the bench prints the records still unchained when the slice ended (the tamper
// window, in records) and how long the seal took to catch up; every chained stream must verify intact at
// the end.
//
// Needs VERDICT_TEST_POSTGRES_URL and/or VERDICT_TEST_MARIADB_URL; an engine without its URL is skipped.
// Variants run in alternating one-second slices (BENCH_SLICES of each, default 5), each slice round starting
// with the next variant.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { chainHash, EvidenceKind, GENESIS_HASH } from '@verdict/nestjs';
import { streamDecision } from '@verdict/testing-kit';
import { DecisionRecordEntity, TypeOrmEvidenceRecorder } from '@verdict/nestjs/typeorm';
import { forEachEngine, run, SLICES, summarize, WRITERS } from './database-bench.js';
import { table, target } from './report.js';
import { fmt } from './stats.js';

const record = (stream) =>
  streamDecision(stream, 'permitted', new Date(), {
    stage: 'execution_claim',
    facts: {
      argumentsFingerprint: 'a'.repeat(64),
      claimFingerprint: 'c'.repeat(64),
      claimStatus: 'claimed',
      claimAttempt: 1,
    },
  });

/** The locked-head candidate: lock the stream, read its head, insert the record and its link, in one transaction. */
function lockedHeadAppender(dataSource, engine) {
  const postgres = engine.name === 'postgres';
  const p = (i) => (postgres ? `$${i}` : '?');
  return async (stream) => {
    const runner = dataSource.createQueryRunner('master');
    try {
      await runner.startTransaction('READ COMMITTED');
      if (postgres) await runner.query('SELECT pg_advisory_xact_lock(hashtext($1))', [stream]);
      else await runner.query('SELECT GET_LOCK(?, 30)', [stream]);
      const [head] = await runner.query(
        `SELECT sequence, hash FROM verdict_evidence_links WHERE kind = 'decision' AND stream = ${p(1)} ORDER BY sequence DESC LIMIT 1`,
        [stream],
      );
      const r = record(stream);
      const link = { sequence: head ? Number(head.sequence) + 1 : 1, previousHash: head ? head.hash : GENESIS_HASH };
      await runner.manager.insert(DecisionRecordEntity, r);
      // Hashed as stored: the chain covers the record as a reader gets it back.
      const stored = await runner.manager.findOneByOrFail(DecisionRecordEntity, { id: r.id });
      await runner.query(
        `INSERT INTO verdict_evidence_links (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)})`,
        [stream, link.sequence, r.id, link.previousHash, chainHash(EvidenceKind.Decision, stored, link)],
      );
      await runner.commitTransaction();
      if (!postgres) await runner.query('SELECT RELEASE_LOCK(?)', [stream]);
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  };
}

const KEY = { algorithm: 'hmac-sha256', keyId: 'bench', secret: 'bench secret' };
const rows = [];
const lags = [];
await forEachEngine(async (engine, admin) => {
  for (const writers of WRITERS) {
    const dataSource = await new DataSource({ ...admin.options, migrations: [], poolSize: writers + 2 }).initialize();
    try {
      const streams = {
        unchained: `bench:${randomUUID()}`,
        locked: `bench:${randomUUID()}`,
        sealed: `bench:${randomUUID()}`,
        signed: `bench:${randomUUID()}`,
      };
      const unchained = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      const sealers = {
        sealed: new TypeOrmEvidenceRecorder(dataSource),
        'sealed + signed': new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY }),
      };
      const sealedStreams = { sealed: streams.sealed, 'sealed + signed': streams.signed };
      const locked = lockedHeadAppender(dataSource, engine);
      const variants = {
        unchained: () => unchained.recordDecision(record(streams.unchained)),
        'locked head': () => locked(streams.locked),
        sealed: () => sealers.sealed.recordDecision(record(streams.sealed)),
        'sealed + signed': () => sealers['sealed + signed'].recordDecision(record(streams.signed)),
      };
      const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, { samples: [], elapsed: 0 }]));
      const clients = Array.from({ length: writers }, (_, i) => i);
      const order = Object.entries(variants);
      for (let slice = 0; slice < SLICES; slice++) {
        // Each slice starts with the next variant: none always runs right after another's seal, or last.
        const rotated = [...order.slice(slice % order.length), ...order.slice(0, slice % order.length)];
        for (const [name, call] of rotated) {
          const result = await run(clients, 1, call);
          samples[name].samples.push(...result.samples);
          samples[name].elapsed += result.elapsed;
          if (name in sealers) {
            const p = engine.name === 'postgres' ? '$1' : '?';
            const [{ unsealed }] = await dataSource.query(
              `SELECT COUNT(*) AS unsealed FROM verdict_decision_records r WHERE r.stream = ${p} AND NOT EXISTS (SELECT 1 FROM verdict_evidence_links l WHERE l.record_id = r.id)`,
              [sealedStreams[name]],
            );
            const started = performance.now();
            await sealers[name].whenSealed();
            lags.push({
              engine: engine.name,
              writers,
              variant: name,
              unsealed: Number(unsealed),
              catchUpMs: performance.now() - started,
            });
          }
        }
      }
      // Each stream is verified as it was written: with the key only the signed one (a keyed verify reports the
      // links of an unsigned stream beyond the last seal's grace `unpinned`, ADR 0048).
      const unsigned = await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).verify();
      const signed = await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual', checkpointKey: KEY }).verify();
      for (const name of ['locked', 'sealed', 'signed']) {
        const verdict = (name === 'signed' ? signed : unsigned).find((v) => v.stream === streams[name]);
        if (!verdict?.intact || verdict.unsealed !== 0 || (name === 'signed' && verdict.checkpointHead === null))
          throw new Error(`the ${name} stream does not verify: ${JSON.stringify(verdict)}`);
      }
      const summary = (name) => summarize(samples[name].samples, samples[name].elapsed, 0);
      const base = summary('unchained');
      for (const name of Object.keys(variants)) {
        const s = summary(name);
        rows.push({ engine: engine.name, writers, variant: name, ...s, ratio: s.opsPerSecond / base.opsPerSecond });
      }
    } finally {
      await dataSource.destroy();
    }
  }
});

if (rows.length > 0) {
  table(
    'Evidence appends to one stream, one DataSource (ops/s over all writers; ratio to unchained)',
    rows.map((row) => ({
      engine: row.engine,
      writers: row.writers,
      variant: row.variant,
      p50_ms: fmt(row.p50, 2),
      p95_ms: fmt(row.p95, 2),
      'ops/s': fmt(row.opsPerSecond, 0),
      ratio: fmt(row.ratio, 2),
    })),
  );
  table(
    'Sealed: records still unchained at the end of each slice, and time for the seal to catch up',
    lags.map((lag) => ({
      engine: lag.engine,
      writers: lag.writers,
      variant: lag.variant,
      unsealed: lag.unsealed,
      catch_up_ms: fmt(lag.catchUpMs, 1),
    })),
  );
  for (const row of rows.filter((r) => r.writers === 20 && r.variant.startsWith('sealed')))
    console.log(
      target(
        `${row.engine} ${row.variant} >= 80% of unchained at 20 writers (${fmt(100 * row.ratio, 0)}%)`,
        row.ratio >= 0.8,
      ),
    );
}
