// Execution claim admission and rate-limit consumption through Verdict's TypeORM stores at 1, 5 and 20
// concurrent writers, each with a connection of its own, next to a baseline measured in the same run:
// pgbench running the equivalent single-statement transaction (PostgreSQL), and the very same statement
// through bare mysql2 connections (MariaDB). Targets (issue 4): one round trip per gate; >= 60% of
// pgbench's rate at 20 writers; p50 < 2 ms at one writer.
//
// Needs VERDICT_TEST_POSTGRES_URL and/or VERDICT_TEST_MARIADB_URL; an engine without its URL is skipped.
// Verdict and its baseline run in alternating one-second slices (BENCH_SLICES of each, default 5), so
// that machine noise (checkpoints, other processes) hits both alike.
import { randomBytes } from 'node:crypto';
import { TypeOrmExecutionClaimStore, TypeOrmRateLimitStore } from '@verdict/nestjs/typeorm';
import {
  comparisonColumns,
  forEachEngine,
  openWriters,
  pgbench,
  run,
  sixtyPercentTarget,
  SLICES,
  summarize,
  WRITERS,
} from './database-bench.js';
import { table, target } from './report.js';
import { fmt } from './stats.js';

const BUCKETS = Array.from({ length: 10_000 }, () => randomBytes(32).toString('hex'));
const WINDOW_START = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const UNLIMITED = 1_000_000_000;

/** The inputs of one gate call: a fresh operation for a claim, one of 10,000 buckets for a unit. */
const gates = {
  'claim admission': {
    input: () => ({
      capability: 'bench.claim',
      policy: 'once',
      bindingFingerprint: randomBytes(32).toString('hex'),
      candidateId: randomBytes(32).toString('base64url'),
      now: new Date(),
    }),
    store: (dataSource) => new TypeOrmExecutionClaimStore(dataSource),
    call: async (store, input) => {
      if (!(await store.admit(input)).admitted)
        throw new Error('a fresh operation was refused: the bench is not measuring admission');
    },
  },
  'rate-limit consumption': {
    input: () => ({
      bucketFingerprint: BUCKETS[(Math.random() * BUCKETS.length) | 0],
      windowStart: WINDOW_START,
      windowSeconds: 3600,
      limit: UNLIMITED,
    }),
    store: (dataSource) => new TypeOrmRateLimitStore(dataSource),
    call: async (store, input) => {
      if (!(await store.consume(input)).allowed) throw new Error('a unit under an unreachable limit was refused');
    },
  },
};

/** pgbench's script per gate: the equivalent single-statement transaction on the same table, same schema. */
const pgbenchScripts = {
  'claim admission':
    `INSERT INTO verdict_execution_claims (id, capability, policy, binding_fingerprint, status, attempt, claimed_at, updated_at) ` +
    `VALUES (left(md5(random()::text) || md5(random()::text), 43), 'bench.claim', 'once', md5(random()::text) || md5(random()::text), 'claimed', 1, now(), now()) ` +
    `ON CONFLICT (binding_fingerprint) DO UPDATE SET status = 'claimed', attempt = verdict_execution_claims.attempt + 1, ` +
    `claimed_at = excluded.claimed_at, updated_at = excluded.updated_at WHERE verdict_execution_claims.status = 'released' RETURNING id, attempt;\n`,
  'rate-limit consumption':
    `\\set k random(1, ${BUCKETS.length})\n` +
    `INSERT INTO verdict_rate_limit_windows (bucket_fingerprint, window_start, "count", expires_at) ` +
    `VALUES (lpad(:k::text, 64, '0'), '${WINDOW_START.toISOString()}', 1, '${new Date(WINDOW_START.getTime() + 3_600_000).toISOString()}') ` +
    `ON CONFLICT (bucket_fingerprint, window_start) DO UPDATE SET "count" = verdict_rate_limit_windows."count" + 1 ` +
    `WHERE verdict_rate_limit_windows."count" < ${UNLIMITED} RETURNING "count";\n`,
};

const rows = [];
await forEachEngine(async (engine, admin) => {
  for (const [gate, spec] of Object.entries(gates)) {
    for (const writers of WRITERS) {
      const { verdict, baseline } = await measure(engine, admin, gate, spec, writers);
      rows.push({ engine: engine.name, gate, writers, verdict, baseline, baselineName: engine.baseline });
      console.log(
        `${engine.name} ${gate} × ${writers}: ${fmt(verdict.opsPerSecond, 0)} ops/s vs ${engine.baseline} ${fmt(baseline, 0)}`,
      );
    }
  }
});

if (rows.length > 0) {
  table(
    `Claims and rate limits: Verdict's TypeORM stores vs a single-statement baseline in the same run (${SLICES} × 1 s slices each, alternating)`,

    rows.map(({ engine, gate, writers, verdict, baseline, baselineName }) => ({
      engine,
      gate,
      writers,
      ...comparisonColumns(verdict, baseline, baselineName),
    })),
  );
  for (const engine of new Set(rows.map((row) => row.engine))) {
    const of = (gate, writers) =>
      rows.find((row) => row.engine === engine && row.gate === gate && row.writers === writers);
    for (const gate of Object.keys(gates)) {
      const one = of(gate, 1);
      const twenty = of(gate, 20);
      console.log(
        `${engine} ${gate}: ` +
          [
            target(
              `one round trip per gate (${fmt(one.verdict.statementsPerOp, 2)})`,
              Math.max(...WRITERS.map((w) => of(gate, w).verdict.statementsPerOp)) === 1,
            ),
            target(`p50 < 2 ms at one writer (${fmt(one.verdict.p50, 2)} ms)`, one.verdict.p50 < 2),
            sixtyPercentTarget(twenty, 'writers'),
          ].join('; '),
      );
    }
  }
}

/**
 * `writers` loops, each on a DataSource with a pool of one connection and a store of its own, calling
 * the gate; then the baseline with as many clients; alternating, one second each, `SLICES` times.
 * Verdict's latency is per call, as the application sees it; its logger counts the statements sent.
 */
async function measure(engine, admin, gate, spec, writers) {
  const { dataSources, connections, statements, close } = await openWriters(engine, admin, writers);
  try {
    const stores = dataSources.map((dataSource) => spec.store(dataSource));
    const verdictCall = (store) => spec.call(store, spec.input());
    await run(stores, 0.5, verdictCall);
    statements.reset();
    // The same statement Verdict sent (captured by its logger), with the same inputs, through bare mysql2.
    const rawCall = async (connection) => {
      const parameters = gate === 'claim admission' ? claimParameters(spec.input()) : unitParameters(spec.input());
      const [result] = await connection.query(statements.first, parameters);
      if (result.insertId === 0) throw new Error('the raw statement was refused');
    };
    const samples = [];
    let elapsed = 0;
    const baselineRates = [];
    for (let slice = 0; slice < SLICES; slice++) {
      const verdict = await run(stores, 1, verdictCall);
      samples.push(...verdict.samples);
      elapsed += verdict.elapsed;
      baselineRates.push(
        engine.name === 'postgres'
          ? pgbench(admin, pgbenchScripts[gate], writers).tps
          : (await run(connections, 1, rawCall)).opsPerSecond,
      );
    }
    return {
      verdict: summarize(samples, elapsed, statements.count),
      baseline: baselineRates.reduce((sum, rate) => sum + rate, 0) / SLICES,
    };
  } finally {
    await close();
  }
}

/** The parameters TypeOrmExecutionClaimStore binds for MySQL/MariaDB, in order. */
function claimParameters({ candidateId, capability, policy, bindingFingerprint, now }) {
  return [
    candidateId,
    capability,
    policy,
    bindingFingerprint,
    now,
    now,
    bindingFingerprint,
    bindingFingerprint,
    now,
    bindingFingerprint,
    now,
    bindingFingerprint,
  ];
}

/** The parameters TypeOrmRateLimitStore binds for MySQL/MariaDB, in order. */
function unitParameters({ bucketFingerprint, windowStart, windowSeconds, limit }) {
  return [bucketFingerprint, windowStart, new Date(windowStart.getTime() + windowSeconds * 1000), limit];
}
