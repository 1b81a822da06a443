// Helpers shared by the database benchmarks (approval receipts, claims and rate limits): the engines and
// their baselines, Verdict's writers with a statement-counting logger, the timed client loop, pgbench,
// and the columns and target lines of the printed table.
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource } from '@verdict/testing-kit';
import { skipped, target } from './report.js';
import { fmt, percentile } from './stats.js';

/** One-second slices of Verdict and of its baseline, alternating. */
export const SLICES = Number(process.env.BENCH_SLICES ?? 5);
export const WRITERS = [1, 5, 20];

const engines = [
  {
    name: 'postgres',
    url: process.env.VERDICT_TEST_POSTGRES_URL,
    baseline: 'pgbench',
    variable: 'VERDICT_TEST_POSTGRES_URL',
  },
  {
    name: 'mariadb',
    url: process.env.VERDICT_TEST_MARIADB_URL,
    baseline: 'raw mysql2',
    variable: 'VERDICT_TEST_MARIADB_URL',
  },
];

/** Runs `bench(engine, admin)` on each engine whose URL is set, with a fresh Verdict schema (`admin`) dropped afterwards. */
export async function forEachEngine(bench) {
  for (const engine of engines) {
    if (!engine.url) {
      skipped(engine.name, `${engine.variable} is not set`);
      continue;
    }
    const admin = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
    try {
      await bench(engine, admin);
    } finally {
      await dropDataSource(admin);
    }
  }
}

/**
 * `writers` DataSources on `admin`'s database, each with a pool of one connection, whose logger counts
 * the statements sent (`statements.count`), keeps the first (`statements.first`) and every distinct
 * statement text in the order first sent (`statements.texts`: on a path where every call sends the same
 * statements, one call's statements) and the first statements sent with their parameters
 * (`statements.sent`, `[sql, parameters]` pairs: after a reset, one call's); as many bare driver connections for a hand-written baseline
 * (`connections`: mysql2 on MariaDB, `pg` clients on PostgreSQL, each answering `query(sql, parameters)`
 * with `[result]`). `close()` ends them all.
 */
export async function openWriters(engine, admin, writers) {
  const statements = {
    count: 0,
    first: undefined,
    texts: [],
    sent: [],
    reset() {
      this.count = 0;
      this.first = undefined;
      this.texts = [];
      this.sent = [];
    },
  };
  const logger = {
    logQuery: (query, parameters) => {
      statements.count++;
      if (statements.sent.length < 8) statements.sent.push([query, parameters]);
      statements.first ??= query;
      if (statements.texts.length < 8 && !statements.texts.includes(query)) statements.texts.push(query);
    },
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  const dataSources = await Promise.all(
    Array.from({ length: writers }, () =>
      new DataSource({ ...admin.options, migrations: [], poolSize: 1, logger }).initialize(),
    ),
  );
  const connections = await Promise.all(
    Array.from({ length: writers }, () =>
      engine.name === 'mariadb' ? mysql.createConnection({ uri: admin.options.url, timezone: 'Z' }) : pgClient(admin),
    ),
  );
  return {
    dataSources,
    connections,
    statements,
    close: () =>
      Promise.all([
        ...dataSources.map((dataSource) => dataSource.destroy()),
        ...connections.map((connection) => connection.end()),
      ]),
  };
}

/** A bare `pg` client on `admin`'s schema whose `query(sql, parameters)` answers `[result]`, as mysql2's does. */
async function pgClient(admin) {
  const client = new pg.Client({
    connectionString: admin.options.url,
    options: `-c search_path=${admin.options.schema}`,
  });
  await client.connect();
  return {
    query: async (sql, parameters) => {
      const result = await client.query(sql, parameters);
      return [Object.assign(result.rows, { affectedRows: result.rowCount })];
    },
    end: () => client.end(),
  };
}

/** Verdict's latencies (ms) over `elapsed` seconds and the statements sent meanwhile, summarized. */
export function summarize(samples, elapsed, statements) {
  return {
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    opsPerSecond: samples.length / elapsed,
    statementsPerOp: statements / samples.length,
  };
}

/** Every client loops on `call` until `seconds` have passed; returns each call's latency (ms) and the aggregate rate. */
export async function run(clients, seconds, call) {
  const samples = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await call(client);
        samples.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { samples, elapsed, opsPerSecond: samples.length / elapsed };
}

/**
 * pgbench's rate (`writers` clients) for `script` on `admin`'s schema, with `options` before the client
 * count (e.g. `-M prepared`): for one second, or, given `transactions`, exactly that many transactions per
 * client (`-t`: the count does not depend on where a timer cut the run, nor on how long 20 connections took
 * to open on a loaded machine, which can eat a whole one-second run). Throws unless the run was clean.
 */
export function pgbench(admin, script, writers, options = [], transactions = undefined) {
  const directory = mkdtempSync(join(tmpdir(), 'verdict-pgbench-'));
  try {
    const file = join(directory, 'gate.sql');
    writeFileSync(file, script);
    const args = [
      '-n',
      ...options,
      '-c',
      String(writers),
      '-j',
      String(Math.min(writers, 2)),
      ...(transactions === undefined ? ['-T', '1'] : ['-t', String(transactions)]),
      '-f',
      file,
      admin.options.url,
    ];
    const output = execFileSync('pgbench', args, {
      encoding: 'utf8',
      env: { ...process.env, PGOPTIONS: `-c search_path=${admin.options.schema}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tps = /tps = ([\d.]+)/.exec(output);
    const processed = /number of transactions actually processed: (\d+)/.exec(output);
    if (!tps || !processed || !/number of failed transactions: 0 /.test(output))
      throw new Error(`pgbench did not report a clean run:\n${output}`);
    return { tps: Number(tps[1]), processed: Number(processed[1]) };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The printed table's columns for Verdict against its baseline. */
export function comparisonColumns(verdict, baseline, baselineName) {
  return {
    p50_ms: fmt(verdict.p50, 2),
    p95_ms: fmt(verdict.p95, 2),
    'ops/s': fmt(verdict.opsPerSecond, 0),
    'statements/op': fmt(verdict.statementsPerOp, 2),
    baseline: baselineName,
    'baseline ops/s': fmt(baseline, 0),
    ratio: fmt(verdict.opsPerSecond / baseline, 2),
  };
}

/** The ">= 60% of the baseline at 20 writers" target of row `twenty`. */
export function sixtyPercentTarget(twenty, clients) {
  return target(
    `>= 60% of ${twenty.baselineName} at 20 ${clients} (${fmt((100 * twenty.verdict.opsPerSecond) / twenty.baseline, 0)}%)`,
    twenty.verdict.opsPerSecond >= 0.6 * twenty.baseline,
  );
}
