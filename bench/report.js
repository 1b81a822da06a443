// What a bench script reports to `bench/run.js`: its figure tables and its targets. Each call prints as
// before; when the script runs under `bench/run.js` (which sets VERDICT_BENCH_REPORT to a file), the
// tables and targets are also written to that file when the process exits, and the runner folds them into
// the final targets table and the results file that docs/benchmarks.md is generated from.
import { writeFileSync } from 'node:fs';

const report = { tables: [], targets: [], skipped: [] };
const file = process.env.VERDICT_BENCH_REPORT;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(report)));

/** A cell as the results file keeps it: numbers and strings as they are, anything else as text. */
const cell = (value) => (typeof value === 'number' || typeof value === 'string' ? value : String(value ?? ''));

/**
 * Prints `rows` (an array of objects, or an object of named rows) under `title` and records them as one
 * figure table of the results file.
 */
export function table(title, rows) {
  console.log(`\n${title}`);
  console.table(rows);
  const list = Array.isArray(rows) ? rows : Object.entries(rows).map(([name, row]) => ({ '': name, ...row }));
  const columns = [...new Set(list.flatMap((row) => Object.keys(row)))];
  report.tables.push({ title, columns, rows: list.map((row) => columns.map((column) => cell(row[column]))) });
}

/**
 * Records one target (`label` states the target and, in parentheses, the figure measured) and returns
 * its console line, `label -> met` or `label -> MISSED`.
 */
export function target(label, met) {
  report.targets.push({ target: label, met: Boolean(met) });
  return `${label} -> ${met ? 'met' : 'MISSED'}`;
}

/** Records and prints that part of a bench did not run (e.g. an engine without its URL) and why. */
export function skipped(what, why) {
  report.skipped.push({ what, why });
  console.log(`${what}: skipped (${why})`);
}
