// `npm run bench`: every benchmark script (or those whose names contain an argument:
// `node bench/run.js bound-tool`), one after another, each printing ratios against a baseline measured in
// the same run and reporting its targets (bench/report.js). The run ends with one table of every target,
// writes the figures to bench/results/<date>-<machine>.json (a later run of a bench the same day on the same
// machine replaces its entry), regenerates the figure blocks of docs/benchmarks.md from the results files,
// and exits non-zero when a target was missed or a script failed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
      ...reported,
    };
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// The one table of every target.
const summary = Object.entries(runs).flatMap(([bench, run]) => [
  ...(run.status === 'completed'
    ? []
    : [{ bench, target: `the script completed (exit code ${run.exitCode})`, met: false }]),
  ...run.targets.map(({ target, met }) => ({ bench, target, met })),
  ...(run.skipped ?? []).map(({ what, why }) => ({ bench, target: `${what} (${why})`, met: undefined })),
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
const previous = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { benches: {} };
mkdirSync(resultsDirectory, { recursive: true });
writeFileSync(path, `${JSON.stringify({ date, machine: host, benches: { ...previous.benches, ...runs } }, null, 2)}\n`);
writeFileSync(documentPath, renderDocument(readFileSync(documentPath, 'utf8'), readResults()));
console.log(`results: ${path}; docs/benchmarks.md regenerated`);

const missed = summary.filter((row) => row.met === false).length;
console.log(missed === 0 ? 'every target met' : `${missed} target(s) missed`);
process.exit(missed === 0 ? 0 : 1);
