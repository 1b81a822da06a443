// `npm run soak`: the durable gates and the proposal pipeline far beyond what `npm test` can afford.
// Every durable gate (claim admission, receipt consumption, approve-vs-reject, rate limit, spend budget,
// trajectory advance) on every configured engine, each round one fresh key raced by every worker process; then
// random proposals through the property test's world. Prints every violation count (all must be 0) and
// the wall time; exits 1 if any count is not 0.
//
// Options (flags win over the environment):
//   --rounds N      VERDICT_SOAK_ROUNDS      contended rounds per gate and engine   (10000)
//   --proposals N   VERDICT_SOAK_PROPOSALS   random proposals                       (100000)
//   --processes N   VERDICT_SOAK_PROCESSES   racing OS processes                    (8)
//   --batch N       VERDICT_SOAK_BATCH       fresh keys per start barrier           (250)
//   --seed N        VERDICT_SOAK_SEED        the proposals' seed                    (random)
//   --gates A,B     VERDICT_SOAK_GATES       only these gates, by reported name     (all)
// Engines: SQLite always; PostgreSQL and MariaDB when VERDICT_TEST_POSTGRES_URL / VERDICT_TEST_MARIADB_URL
// are set (VERDICT_TEST_REQUIRE_DATABASES=1 makes a missing one an error), as for the tests.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { databaseEngines } from '@verdict/testing-kit';
import { type GateSoakResult, soakGates } from './gate-soak.js';
import { soakProposals } from './proposal-soak.js';
import { addViolations, describeViolations, noViolations, violationCount } from './soak-tally.js';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string' },
    proposals: { type: 'string' },
    processes: { type: 'string' },
    batch: { type: 'string' },
    seed: { type: 'string' },
    gates: { type: 'string' },
  },
});

/** A non-negative integer from the flag, else the environment variable, else `fallback`. */
function setting(flag: string | undefined, variable: string, fallback: number): number {
  const text = flag ?? process.env[variable];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${variable} (or its flag) must be a non-negative integer, not "${text}".`);
  return value;
}

const rounds = setting(flags.rounds, 'VERDICT_SOAK_ROUNDS', 10_000);
const proposals = setting(flags.proposals, 'VERDICT_SOAK_PROPOSALS', 100_000);
const processes = setting(flags.processes, 'VERDICT_SOAK_PROCESSES', 8);
const batch = Math.max(1, setting(flags.batch, 'VERDICT_SOAK_BATCH', 250));
const seed = setting(flags.seed, 'VERDICT_SOAK_SEED', Math.floor(Math.random() * 2 ** 31));
const gates = (flags.gates ?? process.env.VERDICT_SOAK_GATES ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
const engines = databaseEngines();

const started = performance.now();
const total = noViolations();
const seconds = (value: number) => `${value.toFixed(1)} s`;
console.log(
  `Soak: ${rounds} contended rounds per gate and engine across ${processes} OS processes (${batch} keys per start barrier), ` +
    `engines ${engines.map((engine) => engine.name).join(', ')}; ${proposals} random proposals (seed ${seed})`,
);

const gateResults: GateSoakResult[] = [];
for (const engine of engines) {
  gateResults.push(
    ...(await soakGates(engine, {
      processes,
      rounds,
      batch,
      gates,
      report: (result) =>
        console.log(
          `  [${result.engine}] ${result.gate}: ${result.rounds} rounds in ${seconds(result.seconds)}; ${describeViolations(result.violations)}`,
        ),
    })),
  );
}
gateResults.forEach((result) => addViolations(total, result.violations));

if (proposals > 0) {
  const result = await soakProposals(proposals, seed);
  addViolations(total, result.violations);
  console.log(
    `  proposals: ${result.proposals} in ${seconds(result.seconds)}, ${result.executed} executed; ${describeViolations(result.violations)}`,
  );
  result.examples.forEach((example) => console.log(`    ${example}`));
}

console.log('Summary');
console.log(`  double admissions:        ${total.doubleAdmissions}`);
console.log(`  double consumptions:      ${total.doubleConsumptions}`);
console.log(`  double decisions:         ${total.doubleDecisions}`);
console.log(`  over-admissions:          ${total.overAdmissions}`);
console.log(`  under-admissions:         ${total.underAdmissions}`);
console.log(`  unauthorized executions:  ${total.unauthorizedExecutions}`);
console.log(`  untyped errors:           ${total.untypedErrors}`);
console.log(`  other violations:         ${total.otherViolations}`);
console.log(`  wall time:                ${seconds((performance.now() - started) / 1000)}`);
process.exitCode = violationCount(total) === 0 ? 0 : 1;
