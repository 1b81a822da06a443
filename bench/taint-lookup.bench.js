// The taint ledger's lookup — the one statement every agent proposal costs (issue 20, item 11) — for 10 candidate
// values over 100,000 entries in 50 tenants, next to a baseline measured in the same run: a single-row primary-key
// read of the same table through the same DataSource. Also checks that the lookup is one statement. Needs
// VERDICT_TEST_POSTGRES_URL and/or VERDICT_TEST_MARIADB_URL; an engine without its URL is skipped. Target (issue 20,
// item 11): one statement per lookup on each engine (that it is indexed, test/provenance/taint-ledger.spec.ts
// asserts with EXPLAIN).
import { randomBytes } from 'node:crypto';
import { taintTenantKey } from '@verdict/nestjs';
import { TypeOrmTaintLedger } from '@verdict/nestjs/typeorm';
import { forEachEngine } from './database-bench.js';
import { table, target } from './report.js';
import { fmt, median, timeCalls } from './stats.js';

const TENANTS = 50;
const PER_TENANT = 2_000;
const CANDIDATES = 10;
const CALLS = 500;
const LATER = new Date(Date.UTC(2099, 0, 1));
const hex = () => randomBytes(32).toString('hex');

const rows = {};
const targets = [];
await forEachEngine(async (engine, dataSource) => {
  const ledger = new TypeOrmTaintLedger(dataSource);
  const recorded = [];
  for (let tenant = 0; tenant < TENANTS; tenant++) {
    const values = Array.from({ length: PER_TENANT }, hex);
    for (let at = 0; at < values.length; at += 1000)
      await ledger.record(taintTenantKey(`tenant-${tenant}`), values.slice(at, at + 1000), LATER);
    recorded.push(values);
  }
  await dataSource.query(
    engine.name === 'postgres' ? 'ANALYZE verdict_taint_entries' : 'ANALYZE TABLE verdict_taint_entries',
  );
  const now = new Date();
  const proposal = (i) => {
    const tenant = i % TENANTS;
    // Half the candidates tainted, half not: the shape of a laundering attempt.
    const asked = [
      ...recorded[tenant].slice(i % 100, (i % 100) + CANDIDATES / 2),
      ...Array.from({ length: CANDIDATES / 2 }, hex),
    ];
    return { tenant: taintTenantKey(`tenant-${tenant}`), asked };
  };
  const inputs = Array.from({ length: CALLS }, (_, i) => proposal(i));
  const pointRead =
    engine.name === 'postgres'
      ? 'SELECT fingerprint FROM verdict_taint_entries WHERE tenant_fingerprint = $1 AND fingerprint = $2'
      : 'SELECT fingerprint FROM verdict_taint_entries WHERE tenant_fingerprint = ? AND fingerprint = ?';
  let statements = 0;
  const logger = dataSource.logger;
  dataSource.logger = {
    ...logger,
    logQuery: () => void statements++,
    logQueryError() {},
    logQuerySlow() {},
    logSchemaBuild() {},
    logMigration() {},
    log() {},
  };
  const lookups = [];
  const baseline = [];
  for (let slice = 0; slice < 4; slice++) {
    statements = 0;
    lookups.push(...(await timeCalls((i) => ledger.tainted(inputs[i].tenant, inputs[i].asked, now), CALLS)));
    const perLookup = statements / CALLS;
    baseline.push(
      ...(await timeCalls((i) => dataSource.query(pointRead, [inputs[i].tenant, inputs[i].asked[0]]), CALLS)),
    );
    if (slice === 3) {
      const [l, b] = [median(lookups), median(baseline)];
      rows[engine.name] = {
        lookup_p50_us: fmt(l),
        pk_read_p50_us: fmt(b),
        ratio: fmt(l / b, 2),
        statements_per_lookup: perLookup,
      };
      targets.push(target(`${engine.name}: one statement per taint lookup (${perLookup})`, perLookup === 1));
    }
  }
  dataSource.logger = logger;
});
if (Object.keys(rows).length > 0) {
  table(
    `Taint lookup of ${CANDIDATES} values (half tainted) over ${TENANTS * PER_TENANT} entries vs a one-row primary-key read (median per call, µs, ${4 * CALLS} calls each)`,
    rows,
  );
  console.log(targets.join('; '));
}
