// `npm run bench`: every benchmark script, one after another, each printing ratios against a baseline
// measured in the same run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const scripts = readdirSync(here).filter((name) => name.endsWith('.bench.js') && (!only || name.includes(only)));
let failed = false;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const run = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit' });
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
