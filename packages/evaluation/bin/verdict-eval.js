#!/usr/bin/env node
// The `verdict-eval` bin. A committed file rather than dist/cli/main.js, so npm links it on install even in
// a checkout that is not built yet: `npx verdict-eval` then runs this file, never a registry package.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'verdict-eval: @verdict/evaluation is not built (dist/cli/main.js is missing); run `npm run build` first.\n',
  );
  process.exit(1);
}
await import(main.href);
