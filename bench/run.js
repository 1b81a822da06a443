// `npm run bench`: every benchmark script (or those whose names contain an argument:
// `node bench/run.js bound-tool`), one after another, each printing ratios against a baseline measured in
// the same run and reporting its targets (bench/report.js). The run ends with one table of every target,
// writes the figures to bench/results/<date>-<machine>.json (a later run of a bench the same day on the same
// machine replaces its entry), regenerates the figure blocks of docs/benchmarks.md from the results files,
// and exits non-zero when a target was missed or a script failed (1), or when nothing was measured at all:
// every target skipped (3). A script that measured nothing (it skipped everything) does not replace the
// figures recorded for it. A run started on a machine busier than its cores is warned about, on the console
// and in the results file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchDirectory,
  benchName,
  commit,
  documentPath,
  load,
  machine,
  readResults,
  renderDocument,
  resultsDirectory,
  resultsFile,
} from './results.js';

const filters = process.argv.slice(2);
const scripts = readdirSync(benchDirectory)
  .filter((name) => name.endsWith('.bench.js') && (filters.length === 0 || filters.some((f) => name.includes(f))))
  .sort();
if (scripts.length === 0) {
  console.error(`no bench script matches ${filters.join(', ')}`);
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'verdict-bench-'));
const settings = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('BENCH_')));
const runs = {};
try {
  for (const script of scripts) {
    console.log(`\n=== ${script} ===`);
    const file = join(scratch, `${script}.json`);
    const startedAt = new Date().toISOString();
    const loadBefore = load();
    const warnings =
      loadBefore > cpus().length
        ? [
            `load average ${loadBefore} before the run exceeds the ${cpus().length} cores: absolute figures are inflated, ratios noisier`,
          ]
        : [];
    for (const warning of warnings) console.warn(`warning: ${warning}`);
    const child = spawnSync(process.execPath, [join(benchDirectory, script)], {
      stdio: 'inherit',
      env: { ...process.env, VERDICT_BENCH_REPORT: file },
    });
    const reported = existsSync(file)
      ? JSON.parse(readFileSync(file, 'utf8'))
      : { tables: [], targets: [], skipped: [] };
    const exitCode = child.status ?? 1;
    runs[benchName(script)] = {
      startedAt,
      finishedAt: new Date().toISOString(),
      commit: commit(),
      loadBefore,
      loadAfter: load(),
      settings,
      status: exitCode === 0 ? 'completed' : 'failed',
      exitCode,
      ...(warnings.length > 0 ? { warnings } : {}),
      ...reported,
    };
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** A script that completed without a figure or a target: it skipped everything it measures. */
const measuredNothing = (run) => run.status === 'completed' && run.tables.length === 0 && run.targets.length === 0;

// The one table of every target: a script that reported no target and no skip still gets a row.
const summary = Object.entries(runs).flatMap(([bench, run]) => [
  ...(run.status === 'completed'
    ? []
    : [{ bench, target: `the script completed (exit code ${run.exitCode})`, met: false }]),
  ...run.targets.map(({ target, met }) => ({ bench, target, met })),
  ...(run.skipped ?? []).map(({ what, why }) => ({ bench, target: `${what} (${why})`, met: undefined })),
  ...(measuredNothing(run) && (run.skipped ?? []).length === 0
    ? [{ bench, target: 'no target reported', met: undefined }]
    : []),
]);
console.log('\n=== targets ===');
console.table(
  summary.map(({ bench, target, met }) => ({
    bench,
    target,
    result: met === undefined ? 'skipped' : met ? 'met' : 'missed',
  })),
);

// The results file, and the document generated from every results file.
const host = machine();
const date = new Date().toISOString().slice(0, 10);
const path = resultsFile(date, host.tag);
const recorded = Object.fromEntries(Object.entries(runs).filter(([, run]) => !measuredNothing(run)));
for (const bench of Object.keys(runs))
  if (!(bench in recorded)) console.log(`${bench}: measured nothing; the figures recorded for it stay as they were`);
if (Object.keys(recorded).length > 0) {
  const previous = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { benches: {} };
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(
    path,
    `${JSON.stringify({ date, machine: host, benches: { ...previous.benches, ...recorded } }, null, 2)}\n`,
  );
  writeFileSync(documentPath, renderDocument(readFileSync(documentPath, 'utf8'), readResults()));
  console.log(`results: ${path}; docs/benchmarks.md regenerated`);
}

const count = (met) => summary.filter((row) => row.met === met).length;
const [met, missed, skippedTargets] = [count(true), count(false), count(undefined)];
const skippedNote = skippedTargets === 0 ? '' : `; ${skippedTargets} skipped`;
if (missed > 0) {
  console.log(`${missed} target(s) missed${skippedNote}`);
  process.exit(1);
}
if (met === 0) {
  console.log(`no target was measured${skippedNote}: nothing to claim`);
  process.exit(3);
}
console.log(`every measured target met${skippedNote}`);
process.exit(0);
