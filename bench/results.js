// The results files (`bench/results/<date>-<machine>.json`) that `bench/run.js` writes, and the figure
// blocks of docs/benchmarks.md generated from them. A block is
//
//   <!-- results: bound-tool -->
//   ...generated...
//   <!-- /results -->
//
// and holds what the newest results file that ran `bound-tool.bench.js` recorded: its tables and targets,
// with the file, date, commit and machine they came from. Nothing between the markers is written by hand.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDirectory = dirname(fileURLToPath(import.meta.url));
export const resultsDirectory = join(benchDirectory, 'results');
export const documentPath = join(benchDirectory, '..', 'docs', 'benchmarks.md');

/** `bound-tool` for `bound-tool.bench.js`. */
export const benchName = (script) => script.replace(/\.bench\.js$/, '');

/** The machine a run describes itself by; `BENCH_MACHINE` names it, else its cores and CPU model. */
export function machine() {
  const model = cpus()[0]?.model ?? 'unknown cpu';
  const tag =
    process.env.BENCH_MACHINE ??
    `${cpus().length}cpu-${model
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}`;
  return { tag, cpu: model, cores: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version };
}

/** The commit the run measured, `+dirty` when the worktree had changes. */
export function commit() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: benchDirectory,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', '.', '../packages', '../libs'], {
      cwd: benchDirectory,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

/** The 1-minute load average, rounded: how busy the machine was (other work shares it). */
export const load = () => Math.round(loadavg()[0] * 10) / 10;

/** The results file of `date` (YYYY-MM-DD) on machine `tag`. */
export const resultsFile = (date, tag) => join(resultsDirectory, `${date}-${tag}.json`);

/** Every results file, parsed, with its name. */
export function readResults() {
  if (!existsSync(resultsDirectory)) return [];
  return readdirSync(resultsDirectory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, ...JSON.parse(readFileSync(join(resultsDirectory, name), 'utf8')) }));
}

/** The newest recorded run of `bench` across the results files, with the file it came from. */
export function latestRun(results, bench) {
  let latest;
  for (const file of results) {
    const run = file.benches?.[bench];
    if (run && (!latest || run.finishedAt > latest.run.finishedAt)) latest = { file, run };
  }
  return latest;
}

const escape = (value) => String(value).replace(/\|/g, '\\|');
const row = (cells) => `| ${cells.map(escape).join(' | ')} |`;

/** The markdown of one bench's newest recorded run (without the markers). */
export function renderBench(results, bench) {
  const latest = latestRun(results, bench);
  if (!latest) return `_No results file records \`${bench}\` yet: run \`node bench/run.js ${bench}\`._`;
  const { file, run } = latest;
  const lines = [
    `_Written by \`node bench/run.js ${bench}\` to [\`bench/results/${file.name}\`](../bench/results/${file.name}): ` +
      `${run.finishedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${run.commit}, ${file.machine.cores} × ${file.machine.cpu}, ` +
      `Node ${file.machine.node}, load average ${run.loadBefore} before / ${run.loadAfter} after` +
      `${
        run.settings && Object.keys(run.settings).length
          ? `, ${Object.entries(run.settings)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }._`,
  ];
  if (run.status !== 'completed') lines.push('', `**The script did not complete (exit code ${run.exitCode}).**`);
  for (const warning of run.warnings ?? []) lines.push('', `_Warning: ${warning}._`);
  for (const table of run.tables) {
    lines.push('', `**${table.title.trim()}**`, '', row(table.columns), row(table.columns.map(() => '---')));
    for (const cells of table.rows) lines.push(row(cells));
  }
  if (run.targets.length > 0) {
    lines.push('', 'Targets:', '');
    for (const { target, met } of run.targets) lines.push(`- ${target}: **${met ? 'met' : 'missed'}**`);
  }
  for (const { what, why } of run.skipped ?? []) lines.push('', `${what}: skipped (${why}).`);
  return lines.join('\n');
}

const blocks = /(<!-- results: ([a-z0-9-]+) -->)[\s\S]*?(<!-- \/results -->)/g;

/** `markdown` with every results block regenerated from `results`. */
export const renderDocument = (markdown, results) =>
  markdown.replace(blocks, (_all, open, bench, close) => `${open}\n${renderBench(results, bench)}\n${close}`);

/** The bench names that `markdown` has a results block for. */
export const documentedBenches = (markdown) => [...markdown.matchAll(blocks)].map((match) => match[2]);
