// Approval receipt issue, validation and consumption through TypeOrmApprovalReceiptStore at 1, 5 and 20
// concurrent connections, next to a baseline measured in the same run: pgbench running the comparable
// single statement (PostgreSQL) — for consumption, the same single-row conditional UPDATE on a scratch copy
// of the table — in its default simple protocol and, for reference, with `-M prepared`; and the very
// statement Verdict sent through bare mysql2 connections (MariaDB). Targets: consumption is one round trip
// (issue 3); issue, validation and consumption >= 0.8 of the baseline at 1, 5 and 20 connections (issue 22).
//
// Needs VERDICT_TEST_POSTGRES_URL and/or VERDICT_TEST_MARIADB_URL; an engine without its URL is skipped.
// Verdict and its baseline run in alternating one-second slices (BENCH_SLICES of each, default 5), so
// that machine noise (checkpoints, other processes) hits both alike.
import { randomBytes } from 'node:crypto';
import { TypeOrmApprovalReceiptStore } from '@verdict/nestjs/typeorm';
import {
  comparisonColumns,
  forEachEngine,
  openWriters,
  pgbench,
  run,
  SLICES,
  summarize,
  WRITERS,
} from './database-bench.js';
import { table, target } from './report.js';
import { fmt } from './stats.js';

const CAPABILITY = 'bench.receipt';
/** Approved receipts that validation reads, at random. */
const VALIDATE_POOL = 2_000;
/** Calls per second assumed for the first slice, before a rate was measured: receipts are prepared for it. */
const FIRST_RATE = 30_000;
/** pgbench client `c`'s `n`th consumption takes receipt `c * CLIENT_STRIDE + n`. */
const CLIENT_STRIDE = 10_000_000;
const SCRATCH = 'bench_receipts';
const COLUMNS =
  'id, tool_call_id, capability, binding_fingerprint, status, reason, description, subject, expires_at, approved_by, approved_at, rejected_by, rejected_at, consumed_at, created_at, updated_at';

/** The key of prepared receipt `n` (`c<n>` or `v<n>`, binding `n` zero-padded to 64 characters): the same formula in SQL. */
const preparedKey = (prefix, n) => ({
  toolCallId: `${prefix}${n}`,
  capability: CAPABILITY,
  bindingFingerprint: String(n).padStart(64, '0'),
});

/**
 * Each operation: Verdict's call, the raw-mysql2 parameters of the first statement it sends, and the
 * pgbench script of the comparable statement. Consumption takes each prepared approved receipt once,
 * so every call, Verdict's and the baseline's, is the success path.
 */
const operations = {
  issue: {
    input: () => {
      const now = new Date();
      return {
        toolCallId: `call_${randomBytes(12).toString('hex')}`,
        capability: CAPABILITY,
        bindingFingerprint: randomBytes(32).toString('hex'),
        candidateId: randomBytes(32).toString('base64url'),
        reason: 'Cancelling an order cannot be undone.',
        description: null,
        subject: null,
        expiresAt: new Date(now.getTime() + 900_000),
        now,
      };
    },
    call: async (store, input) => {
      if ((await store.issue(input)).id !== input.candidateId)
        throw new Error('a fresh key kept another receipt: the bench is not measuring issue');
    },
    rawParameters: (i) => [
      i.candidateId,
      i.toolCallId,
      i.capability,
      i.bindingFingerprint,
      i.reason,
      i.description,
      i.subject,
      i.expiresAt,
      i.now,
      i.now,
      null, // principal_fingerprint: no pending-receipt limits
      null, // conversation_fingerprint
      null, // provenance: not analysed
    ],
    rawCheck: (result) => result.affectedRows === 1,
    pgbench: () =>
      `INSERT INTO verdict_approval_receipts (id, tool_call_id, capability, binding_fingerprint, status, reason, description, subject, expires_at, created_at, updated_at) ` +
      `VALUES (left(md5(random()::text) || md5(random()::text), 43), 'call_' || md5(random()::text), '${CAPABILITY}', md5(random()::text) || md5(random()::text), ` +
      `'pending', 'Cancelling an order cannot be undone.', NULL, NULL, now() + interval '15 minutes', now(), now()) ` +
      `ON CONFLICT (tool_call_id, capability, binding_fingerprint) DO NOTHING RETURNING ${COLUMNS};\n`,
  },
  validate: {
    input: () => ({ key: preparedKey('v', 1 + ((Math.random() * VALIDATE_POOL) | 0)), now: new Date() }),
    call: async (store, { key, now }) => {
      if ((await store.validate(key, now)).outcome !== 'approved')
        throw new Error('a prepared approved receipt did not validate');
    },
    rawParameters: ({ key }) => [key.toolCallId, key.capability],
    rawCheck: (rows) => rows.length === 1,
    pgbench: () =>
      `\\set k random(1, ${VALIDATE_POOL})\n` +
      `SELECT ${COLUMNS} FROM verdict_approval_receipts WHERE tool_call_id = 'v' || :k AND capability = '${CAPABILITY}';\n`,
  },
  consume: {
    consumesPrepared: true,
    input: (pool) => ({ key: pool.next(), now: new Date() }),
    call: async (store, { key, now }) => {
      if ((await store.consume(key, now)).outcome !== 'approved')
        throw new Error('a prepared approved receipt was not consumed');
    },
    rawParameters: ({ key, now }) => [now, now, key.toolCallId, key.capability, key.bindingFingerprint, now],
    rawCheck: (result) => result.affectedRows === 1,
    // Verdict's statement; each client counts its own receipts (`:n` persists across a client's transactions).
    pgbench: () =>
      `\\set n :n + 1\n\\set key :client_id * ${CLIENT_STRIDE} + :n\n` +
      `UPDATE ${SCRATCH} SET status = 'consumed', consumed_at = now(), updated_at = now() ` +
      `WHERE tool_call_id = 'c' || :key AND capability = '${CAPABILITY}' AND binding_fingerprint = lpad(:key::text, 64, '0') ` +
      `AND status = 'approved' AND expires_at > now() RETURNING ${COLUMNS};\n`,
  },
};

const rows = [];
await forEachEngine(async (engine, admin) => {
  await admin.query(
    engine.name === 'postgres'
      ? `CREATE TABLE ${SCRATCH} (LIKE verdict_approval_receipts INCLUDING ALL)`
      : `CREATE TABLE ${SCRATCH} LIKE verdict_approval_receipts`,
  );
  await prepare(engine, admin, 'verdict_approval_receipts', 'v', range(engine, 1, VALIDATE_POOL));
  const receipts = {
    verdict: receiptPool(engine, admin, 'verdict_approval_receipts'),
    raw: receiptPool(engine, admin, SCRATCH),
    pgbench: pgbenchPool(admin),
  };
  for (const [operation, spec] of Object.entries(operations)) {
    for (const writers of WRITERS) {
      const result = await measure(engine, admin, spec, writers, receipts);
      rows.push({ engine: engine.name, operation, writers, ...result, baselineName: engine.baseline });
      console.log(
        `${engine.name} ${operation} × ${writers}: ${fmt(result.verdict.opsPerSecond, 0)} ops/s vs ${engine.baseline} ${fmt(result.baseline, 0)}`,
      );
    }
  }
});

if (rows.length > 0) {
  table(
    `Approval receipts: TypeOrmApprovalReceiptStore vs a single-statement baseline in the same run (${SLICES} × 1 s slices each, alternating)`,

    rows.map(({ engine, operation, writers, verdict, baseline, prepared, baselineName }) => ({
      engine,
      operation,
      writers,
      ...comparisonColumns(verdict, baseline, baselineName),
      'pgbench -M prepared': prepared === undefined ? '' : fmt(prepared, 0),
      'ratio (prepared)': prepared === undefined ? '' : fmt(verdict.opsPerSecond / prepared, 2),
    })),
  );
  for (const engine of new Set(rows.map((row) => row.engine))) {
    const of = (operation, writers) =>
      rows.find((row) => row.engine === engine && row.operation === operation && row.writers === writers);
    const statements = Math.max(...WRITERS.map((writers) => of('consume', writers).verdict.statementsPerOp));
    console.log(
      `${engine} consume: ` +
        target(`${engine} consume is one round trip (${fmt(statements, 2)} statements per call)`, statements === 1) +
        (engine === 'mariadb' ? ' (MariaDB has no UPDATE … RETURNING: the consumed row is read back)' : ''),
    );
    // Issue 22: every operation at >= 80% of the baseline's rate, at every connection count.
    for (const operation of Object.keys(operations)) {
      const ratios = WRITERS.map((writers) => of(operation, writers)).map(
        (row) => `${row.writers}: ${fmt(row.verdict.opsPerSecond / row.baseline, 2)}`,
      );
      const worst = Math.min(
        ...WRITERS.map((writers) => of(operation, writers).verdict.opsPerSecond / of(operation, writers).baseline),
      );
      console.log(
        target(
          `${engine} ${operation} >= 0.80 of ${of(operation, 1).baselineName} at 1, 5 and 20 connections (${ratios.join(', ')})`,
          worst >= 0.8,
        ),
      );
    }
  }
}

/**
 * `writers` loops, each on a DataSource with a pool of one connection and a store of its own, calling
 * the operation; then the baseline with as many clients; alternating, one second each, `SLICES` times.
 * Verdict's latency is per call, as the application sees it; its logger counts the statements sent.
 */
async function measure(engine, admin, spec, writers, receipts) {
  const { dataSources, connections, statements, close } = await openWriters(engine, admin, writers);
  // Receipts to prepare before a slice: four times what the last slice of the same kind used (a slice that
  // runs out fails: rates swing widely on a shared machine).
  const rates = { verdict: FIRST_RATE, raw: FIRST_RATE, simple: FIRST_RATE, prepared: FIRST_RATE };
  const refill = async (pool, rate) => spec.consumesPrepared && (await pool.refill(Math.ceil(4 * rate)));
  try {
    const stores = dataSources.map((dataSource) => new TypeOrmApprovalReceiptStore(dataSource));
    const verdictCall = (store) => spec.call(store, spec.input(receipts.verdict));
    await refill(receipts.verdict, rates.verdict / 2);
    rates.verdict = 2 * (await run(stores, 0.5, verdictCall)).opsPerSecond;
    statements.reset();
    // The first statement Verdict sent (captured by its logger), with the same inputs, through bare mysql2.
    const rawCall = async (connection) => {
      const sql = spec.consumesPrepared
        ? statements.first.replace('verdict_approval_receipts', SCRATCH)
        : statements.first;
      const [result] = await connection.query(sql, spec.rawParameters(spec.input(receipts.raw)));
      if (!spec.rawCheck(result)) throw new Error('the raw statement did not do what Verdict did');
    };
    // pgbench's clients each consume their own reserved receipts; a slice that ran faster than its
    // reservation (the rate is a guess from the previous slice, and swings widely on a shared machine)
    // exhausts a client's receipts, and its further UPDATEs match nothing. Such a slice is measured
    // again with four times the reservation; any other mismatch is an error.
    const pgbenchRun = async (mode) => {
      for (let factor = 2; ; factor *= 4) {
        const perClient = Math.ceil((factor * rates[mode]) / writers) + 100;
        const offset = spec.consumesPrepared ? await receipts.pgbench.reserve(writers, perClient) : 0;
        const { tps, processed } = pgbench(admin, spec.pgbench(), writers, ['-M', mode, '-D', `n=${offset}`]);
        if (spec.consumesPrepared && (await receipts.pgbench.check(processed, writers)) === 'exhausted') {
          console.log(`pgbench -M ${mode} × ${writers} outran its ${perClient} receipts per client: measured again`);
          rates[mode] = Math.max(rates[mode], tps);
          continue;
        }
        return (rates[mode] = tps);
      }
    };
    const samples = [];
    let elapsed = 0;
    const baselineRates = [];
    const preparedRates = [];
    for (let slice = 0; slice < SLICES; slice++) {
      await refill(receipts.verdict, rates.verdict);
      const verdict = await run(stores, 1, verdictCall);
      samples.push(...verdict.samples);
      elapsed += verdict.elapsed;
      rates.verdict = verdict.opsPerSecond;
      if (engine.name === 'postgres') {
        baselineRates.push(await pgbenchRun('simple'));
        preparedRates.push(await pgbenchRun('prepared'));
      } else {
        await refill(receipts.raw, rates.raw);
        baselineRates.push((rates.raw = (await run(connections, 1, rawCall)).opsPerSecond));
      }
    }
    const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      verdict: summarize(samples, elapsed, statements.count),
      baseline: mean(baselineRates),
      prepared: preparedRates.length > 0 ? mean(preparedRates) : undefined,
    };
  } finally {
    await close();
  }
}

/** A derived table `g(n)` of the integers `from`..`to`. */
function range(engine, from, to) {
  return engine.name === 'postgres'
    ? `generate_series(${from}, ${to}) AS g(n)`
    : `(SELECT seq AS n FROM seq_${from}_to_${to}) AS g`;
}

/** Inserts approved receipts, unexpired for an hour, keyed as {@link preparedKey} for every `n` of `keys` (a derived table `g(n)`), server-side. */
async function prepare(engine, admin, table, prefix, keys) {
  const columns =
    'id, tool_call_id, capability, binding_fingerprint, status, reason, expires_at, approved_by, approved_at, created_at, updated_at';
  const values =
    engine.name === 'postgres'
      ? `'r${prefix}' || n, '${prefix}' || n, '${CAPABILITY}', lpad(n::text, 64, '0'), 'approved', 'bench', now() + interval '1 hour', 'bench:1', now(), now(), now()`
      : `CONCAT('r${prefix}', n), CONCAT('${prefix}', n), '${CAPABILITY}', LPAD(n, 64, '0'), 'approved', 'bench', ` +
        `UTC_TIMESTAMP(3) + INTERVAL 1 HOUR, 'bench:1', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)`;
  await admin.query(`INSERT INTO ${table} (${columns}) SELECT ${values} FROM ${keys}`);
}

/** Prepared receipts `c1`, `c2`, … of `table`, each handed out once; `refill(count)` prepares `count` more. */
function receiptPool(engine, admin, table) {
  let next = 1;
  let filled = 0;
  return {
    next() {
      if (next > filled) throw new Error(`${table}: out of prepared receipts`);
      return preparedKey('c', next++);
    },
    async refill(count) {
      await prepare(engine, admin, table, 'c', range(engine, filled + 1, filled + count));
      filled += count;
    },
  };
}

/**
 * Prepared receipts for pgbench's consumptions: `reserve(clients, perClient)` prepares `perClient` fresh
 * receipts for each client and answers the `-D n=` offset; `check(processed)` proves that every
 * transaction of the run consumed a receipt (an update of no row would make the baseline look faster).
 */
function pgbenchPool(admin) {
  let reserved = 0;
  let consumed = 0;
  return {
    async reserve(clients, perClient) {
      const offset = reserved;
      reserved += perClient;
      const keys =
        `(SELECT client * ${CLIENT_STRIDE} + i AS n FROM generate_series(0, ${clients - 1}) AS c(client), ` +
        `generate_series(${offset + 1}, ${reserved}) AS s(i)) AS g`;
      await prepare({ name: 'postgres' }, admin, SCRATCH, 'c', keys);
      return offset;
    },
    /**
     * `'consumed'` when the run consumed exactly one receipt per transaction; `'exhausted'` when some
     * client had no receipt left (the reservation was too small: the caller measures again); throws otherwise.
     */
    async check(processed, clients) {
      const [{ count }] = await admin.query(`SELECT count(*) AS count FROM ${SCRATCH} WHERE status = 'consumed'`);
      const now = Number(count) - consumed;
      consumed = Number(count);
      // A client ran out when its last reserved receipt was consumed.
      const [{ starved }] = await admin.query(
        `SELECT count(*) AS starved FROM ${SCRATCH} WHERE status = 'consumed' AND tool_call_id IN ` +
          `(SELECT 'c' || (client * ${CLIENT_STRIDE} + ${reserved}) FROM generate_series(0, ${clients - 1}) AS c(client))`,
      );
      if (Number(starved) > 0) return 'exhausted';
      if (now !== processed) throw new Error(`pgbench ran ${processed} transactions but consumed ${now} receipts`);
      return 'consumed';
    },
  };
}
