#!/usr/bin/env node
// The `verdict` bin. A committed file rather than dist/cli/verdict-bin.js, so npm links it on install even in
// a checkout that is not built yet: `npx verdict` then runs this file, never a registry package.
import 'reflect-metadata';
import { existsSync } from 'node:fs';

const bin = new URL('../dist/cli/verdict-bin.js', import.meta.url);
if (!existsSync(bin)) {
  process.stderr.write(
    'verdict: @verdict/nestjs is not built (dist/cli/verdict-bin.js is missing); run `npm run build` first.\n',
  );
  process.exit(1);
}
const { runVerdictBin } = await import(bin.href);
await runVerdictBin(process.argv.slice(2));
// The command has run and closed its application. An application that could not start (a provider threw) leaves
// behind what it opened, which nothing can close: once the output is written, the bin ends with the command's code.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write('', done))));
process.exit();
